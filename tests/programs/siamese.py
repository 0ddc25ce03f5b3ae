"""Siamese network (pytorch/examples/siamese_network style) on Fashion-MNIST pairs, with a contrastive loss
on pairwise distances and a triplet-loss variant."""
import argparse
import gzip
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, Dataset


def load(split, limit):
    root = '/usr/share/datasets/fashion-mnist/'
    with gzip.open(root + split + '-images-idx3-ubyte.gz') as f:
        x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)[:limit]
    with gzip.open(root + split + '-labels-idx1-ubyte.gz') as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8)[:limit]
    return torch.tensor(x, dtype=torch.float32) / 255., torch.tensor(y, dtype=torch.long)


class SiameseNetwork(nn.Module):
    def __init__(self):
        super(SiameseNetwork, self).__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=5), nn.ReLU(inplace=True), nn.MaxPool2d(2, stride=2),
            nn.Conv2d(8, 16, kernel_size=5), nn.ReLU(inplace=True), nn.MaxPool2d(2, stride=2),
        )
        self.fc = nn.Sequential(nn.Linear(16 * 4 * 4, 64), nn.ReLU(inplace=True), nn.Linear(64, 16))

    def forward_once(self, x):
        output = self.cnn(x)
        output = output.view(output.size()[0], -1)
        output = self.fc(output)
        return output

    def forward(self, input1, input2):
        output1 = self.forward_once(input1)
        output2 = self.forward_once(input2)
        return output1, output2


class ContrastiveLoss(torch.nn.Module):
    """Contrastive loss (Hadsell, Chopra and LeCun, 2006)."""

    def __init__(self, margin=2.0):
        super(ContrastiveLoss, self).__init__()
        self.margin = margin

    def forward(self, output1, output2, label):
        euclidean_distance = F.pairwise_distance(output1, output2, keepdim=True)
        loss_contrastive = torch.mean((1 - label) * torch.pow(euclidean_distance, 2) +
                                      (label) * torch.pow(torch.clamp(self.margin - euclidean_distance, min=0.0), 2))
        return loss_contrastive


class PairDataset(Dataset):
    def __init__(self, images, labels, seed):
        self.images, self.labels = images, labels
        rng = random.Random(seed)
        by_class = {}
        for i, c in enumerate(labels.tolist()):
            by_class.setdefault(c, []).append(i)
        self.pairs = []
        for i, c in enumerate(labels.tolist()):
            if rng.random() < 0.5:
                j = rng.choice(by_class[c])
            else:
                j = rng.randrange(len(labels))
            negative = rng.choice([k for k in by_class if k != c])
            self.pairs.append((i, j, rng.choice(by_class[negative])))

    def __getitem__(self, index):
        i, j, k = self.pairs[index]
        label = torch.tensor([float(self.labels[i] != self.labels[j])])
        return self.images[i], self.images[j], self.images[k], label

    def __len__(self):
        return len(self.pairs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--epochs', type=int, default=2)
    parser.add_argument('--limit', type=int, default=512)
    parser.add_argument('--batch-size', type=int, default=64)
    parser.add_argument('--seed', type=int, default=3)
    args = parser.parse_args()
    torch.manual_seed(args.seed)

    x, y = load('train', args.limit)
    loader = DataLoader(PairDataset(x, y, args.seed), batch_size=args.batch_size, shuffle=True)
    net = SiameseNetwork()
    criterion = ContrastiveLoss()
    triplet = nn.TripletMarginLoss(margin=1.0, p=2)
    optimizer = optim.Adam(net.parameters(), lr=0.0005)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.5)

    for epoch in range(args.epochs):
        for i, (img0, img1, img2, label) in enumerate(loader):
            optimizer.zero_grad()
            output1, output2 = net(img0, img1)
            loss_contrastive = criterion(output1, output2, label)
            anchor, negative = output1, net.forward_once(img2)
            positive = net.forward_once(img0.flip(-1))
            loss_triplet = triplet(anchor, positive, negative)
            loss = loss_contrastive + loss_triplet
            loss.backward()
            optimizer.step()
            if i % 2 == 0:
                print("Epoch number {} iteration {}: contrastive {:.5f} triplet {:.5f}".format(
                    epoch, i, loss_contrastive.item(), loss_triplet.item()))
        scheduler.step()

    net.eval()
    with torch.no_grad():
        xt, yt = load('t10k', 200)
        emb = net.forward_once(xt)
        d = torch.cdist(emb, emb)
        d.fill_diagonal_(float('inf'))
        nearest = d.argmin(dim=1)
        acc = (yt[nearest] == yt).float().mean().item()
        cos = F.cosine_similarity(emb[:1], emb[1:2]).item()
    print('1-NN accuracy {:.3f} cosine {:.4f}'.format(acc, cos))


if __name__ == '__main__':
    main()
