"""pytorch/examples/mnist_hogwild: Hogwild! training with torch.multiprocessing on a shared model."""
from __future__ import print_function
import argparse
import gzip
import os

import numpy as np
import torch
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import TensorDataset, DataLoader, Subset


def dataset(split, limit):
    root = '/usr/share/datasets/fashion-mnist/'
    with gzip.open(root + split + '-images-idx3-ubyte.gz') as f:
        x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)[:limit]
    with gzip.open(root + split + '-labels-idx1-ubyte.gz') as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8)[:limit]
    x = (torch.tensor(x, dtype=torch.float32) / 255. - 0.1307) / 0.3081
    return TensorDataset(x, torch.tensor(y, dtype=torch.long))


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def train(rank, args, model, train_set, queue):
    torch.manual_seed(args.seed + rank)
    part = Subset(train_set, range(rank, len(train_set), args.num_processes))
    train_loader = DataLoader(part, batch_size=args.batch_size, shuffle=True)
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    model.train()
    losses = []
    for epoch in range(1, args.epochs + 1):
        for data, target in train_loader:
            optimizer.zero_grad()
            output = model(data)
            loss = F.nll_loss(output, target)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    queue.put((rank, len(losses), sum(losses) / len(losses)))


def test(model, test_set):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in DataLoader(test_set, batch_size=100):
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()
            pred = output.max(1)[1]
            correct += pred.eq(target).sum().item()
    test_loss /= len(test_set)
    return test_loss, correct


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description='PyTorch MNIST Hogwild Example')
    parser.add_argument('--batch-size', type=int, default=32)
    parser.add_argument('--epochs', type=int, default=1)
    parser.add_argument('--lr', type=float, default=0.01)
    parser.add_argument('--momentum', type=float, default=0.5)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--num-processes', type=int, default=2)
    parser.add_argument('--limit', type=int, default=512)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    mp.set_start_method('spawn', force=True)

    model = Net()
    model.share_memory()  # gradients are allocated lazily, so they are not shared here
    print('shared', all(p.is_shared() for p in model.parameters()))
    train_set = dataset('train', args.limit)
    test_set = dataset('t10k', 300)
    loss0, _ = test(model, test_set)
    print('initial test loss {:.5f}'.format(loss0))

    queue = mp.Queue()
    processes = []
    for rank in range(args.num_processes):
        p = mp.Process(target=train, args=(rank, args, model, train_set, queue))
        # We first train the model across `num_processes` processes
        p.start()
        processes.append(p)
    results = sorted(queue.get() for _ in processes)
    for p in processes:
        p.join()
    for rank, steps, mean_loss in results:
        print('worker {} steps {} mean loss {:.3f}'.format(rank, steps, mean_loss))

    # Once training is complete, we can test the model: the workers' updates are in the shared parameters.
    test_loss, correct = test(model, test_set)
    print('changed', test_loss != loss0)
    print('Test set: Average loss: {:.4f}, Accuracy: {}/{}'.format(test_loss, correct, len(test_set)))
