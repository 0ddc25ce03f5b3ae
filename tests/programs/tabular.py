"""A tabular classifier as tutorials write it: a Dataset subclass over numeric features, DataLoader with
worker processes, an MLP, ReduceLROnPlateau, and a checkpoint dict saved and resumed with torch.save/torch.load.

The table: Fashion-MNIST pictures averaged over 4x4 blocks (49 numeric columns), a stand-in for a CSV."""
import argparse
import gzip
import os

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader


class TableDataset(Dataset):
    def __init__(self, features, labels, mean=None, std=None):
        self.mean = features.mean(axis=0) if mean is None else mean
        self.std = features.std(axis=0) + 1e-6 if std is None else std
        self.x = ((features - self.mean) / self.std).astype(np.float32)
        self.y = labels.astype(np.int64)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, idx):
        return torch.from_numpy(self.x[idx]), torch.tensor(self.y[idx])


class MLP(nn.Module):
    def __init__(self, n_in, n_hidden, n_out, p=0.1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_in, n_hidden), nn.BatchNorm1d(n_hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(n_hidden, n_hidden), nn.ReLU(),
            nn.Linear(n_hidden, n_out))

    def forward(self, x):
        return self.net(x)


def read(split, limit):
    root = '/usr/share/datasets/fashion-mnist/'
    with gzip.open(root + split + '-images-idx3-ubyte.gz') as f:
        x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 7, 4, 7, 4)[:limit]
    with gzip.open(root + split + '-labels-idx1-ubyte.gz') as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8)[:limit]
    return x.astype(np.float64).mean(axis=(2, 4)).reshape(len(x), 49), y


def run_epoch(model, loader, criterion, optimizer=None):
    training = optimizer is not None
    model.train(training)
    total, correct, count = 0.0, 0, 0
    with torch.set_grad_enabled(training):
        for xb, yb in loader:
            out = model(xb)
            loss = criterion(out, yb)
            if training:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total += loss.item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            count += len(yb)
    return total / count, correct / count


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--epochs', type=int, default=4)
    parser.add_argument('--limit', type=int, default=2000)
    parser.add_argument('--workers', type=int, default=2)
    parser.add_argument('--ckpt', default='/tmp/tabular_ckpt.pt')
    args = parser.parse_args()
    torch.manual_seed(0)

    x, y = read('train', args.limit)
    xt, yt = read('t10k', 500)
    train_set = TableDataset(x, y)
    test_set = TableDataset(xt, yt, train_set.mean, train_set.std)
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=args.workers)
    test_loader = DataLoader(test_set, batch_size=256, num_workers=args.workers)

    model = MLP(49, 64, 10)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.05)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode='min', factor=0.5, patience=0)

    half = args.epochs // 2
    for epoch in range(half):
        tr_loss, tr_acc = run_epoch(model, train_loader, criterion, optimizer)
        va_loss, va_acc = run_epoch(model, test_loader, criterion)
        scheduler.step(va_loss)
        print(f"epoch {epoch} train loss {tr_loss:.4f} acc {tr_acc:.3f} val loss {va_loss:.4f} acc {va_acc:.3f} "
              f"lr {optimizer.param_groups[0]['lr']:.5f}")
    torch.save({
        'epoch': half,
        'model_state_dict': model.state_dict(),
        'optimizer_state_dict': optimizer.state_dict(),
        'scheduler_state_dict': scheduler.state_dict(),
        'loss': tr_loss,
    }, args.ckpt)

    # Resume in a fresh model/optimizer, as a second run of the script would.
    model = MLP(49, 64, 10)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode='min', factor=0.5, patience=0)
    checkpoint = torch.load(args.ckpt)
    model.load_state_dict(checkpoint['model_state_dict'])
    optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
    scheduler.load_state_dict(checkpoint['scheduler_state_dict'])
    start = checkpoint['epoch']
    print('resumed at epoch', start, 'loss %.4f' % checkpoint['loss'])
    for epoch in range(start, args.epochs):
        tr_loss, tr_acc = run_epoch(model, train_loader, criterion, optimizer)
        va_loss, va_acc = run_epoch(model, test_loader, criterion)
        scheduler.step(va_loss)
        print(f"epoch {epoch} train loss {tr_loss:.4f} acc {tr_acc:.3f} val loss {va_loss:.4f} acc {va_acc:.3f} "
              f"lr {optimizer.param_groups[0]['lr']:.5f}")
    os.remove(args.ckpt)


if __name__ == '__main__':
    main()
