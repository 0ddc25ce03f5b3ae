"""A small U-Net (Ronneberger et al., 2015; milesial/Pytorch-UNet style) segmenting Fashion-MNIST objects
from the background, trained with BCEWithLogitsLoss + Dice loss."""
import argparse
import gzip

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.utils.data import DataLoader, TensorDataset, random_split


class DoubleConv(nn.Module):
    """(convolution => [BN] => ReLU) * 2"""

    def __init__(self, in_channels, out_channels, mid_channels=None):
        super().__init__()
        if not mid_channels:
            mid_channels = out_channels
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, mid_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(mid_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(mid_channels, out_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True)
        )

    def forward(self, x):
        return self.double_conv(x)


class Down(nn.Module):
    """Downscaling with maxpool then double conv"""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.maxpool_conv = nn.Sequential(
            nn.MaxPool2d(2),
            DoubleConv(in_channels, out_channels)
        )

    def forward(self, x):
        return self.maxpool_conv(x)


class Up(nn.Module):
    """Upscaling then double conv"""

    def __init__(self, in_channels, out_channels, bilinear=True):
        super().__init__()

        # if bilinear, use the normal convolutions to reduce the number of channels
        if bilinear:
            self.up = nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)
            self.conv = DoubleConv(in_channels, out_channels, in_channels // 2)
        else:
            self.up = nn.ConvTranspose2d(in_channels, in_channels // 2, kernel_size=2, stride=2)
            self.conv = DoubleConv(in_channels, out_channels)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        # input is CHW
        diffY = x2.size()[2] - x1.size()[2]
        diffX = x2.size()[3] - x1.size()[3]

        x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2,
                        diffY // 2, diffY - diffY // 2])
        x = torch.cat([x2, x1], dim=1)
        return self.conv(x)


class OutConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super(OutConv, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, x):
        return self.conv(x)


class UNet(nn.Module):
    def __init__(self, n_channels, n_classes, bilinear=False):
        super(UNet, self).__init__()
        self.n_channels = n_channels
        self.n_classes = n_classes
        self.bilinear = bilinear

        self.inc = DoubleConv(n_channels, 8)
        self.down1 = Down(8, 16)
        self.down2 = Down(16, 32)
        factor = 2 if bilinear else 1
        self.down3 = Down(32, 64 // factor)
        self.up1 = Up(64, 32 // factor, bilinear)
        self.up2 = Up(32, 16 // factor, bilinear)
        self.up3 = Up(16, 8, bilinear)
        self.outc = OutConv(8, n_classes)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x4 = self.down3(x3)
        x = self.up1(x4, x3)
        x = self.up2(x, x2)
        x = self.up3(x, x1)
        logits = self.outc(x)
        return logits


def dice_coeff(input, target, reduce_batch_first=False, epsilon=1e-6):
    # Average of Dice coefficient for all batches, or for a single mask
    assert input.size() == target.size()
    assert input.dim() == 3 or not reduce_batch_first

    sum_dim = (-1, -2) if input.dim() == 2 or not reduce_batch_first else (-1, -2, -3)

    inter = 2 * (input * target).sum(dim=sum_dim)
    sets_sum = input.sum(dim=sum_dim) + target.sum(dim=sum_dim)
    sets_sum = torch.where(sets_sum == 0, inter, sets_sum)

    dice = (inter + epsilon) / (sets_sum + epsilon)
    return dice.mean()


def dice_loss(input, target):
    return 1 - dice_coeff(input, target, reduce_batch_first=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--epochs', type=int, default=2)
    parser.add_argument('--batch-size', type=int, default=16)
    parser.add_argument('--limit', type=int, default=160)
    parser.add_argument('--bilinear', action='store_true')
    parser.add_argument('--lr', type=float, default=1e-3)
    args = parser.parse_args()
    torch.manual_seed(0)

    with gzip.open('/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz') as f:
        raw = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)[:args.limit]
    images = torch.from_numpy(raw.astype(np.float32) / 255.)
    # Image 28x28 is padded to 30x30 so that pooling gives odd sizes and Up must pad.
    images = F.pad(images, (1, 1, 1, 1))
    masks = (images > 0.1).float().squeeze(1)
    noisy = images + 0.3 * torch.randn_like(images)
    dataset = TensorDataset(noisy, masks)
    n_val = len(dataset) // 5
    train_set, val_set = random_split(dataset, [len(dataset) - n_val, n_val],
                                      generator=torch.Generator().manual_seed(0))
    train_loader = DataLoader(train_set, shuffle=True, batch_size=args.batch_size)
    val_loader = DataLoader(val_set, shuffle=False, batch_size=args.batch_size, drop_last=True)

    model = UNet(n_channels=1, n_classes=1, bilinear=args.bilinear)
    optimizer = optim.RMSprop(model.parameters(), lr=args.lr, weight_decay=1e-8, momentum=0.9)
    scheduler = optim.lr_scheduler.ReduceLROnPlateau(optimizer, 'max', patience=2)
    criterion = nn.BCEWithLogitsLoss()
    global_step = 0

    for epoch in range(1, args.epochs + 1):
        model.train()
        epoch_loss = 0
        for images_b, true_masks in train_loader:
            masks_pred = model(images_b)
            loss = criterion(masks_pred.squeeze(1), true_masks)
            loss += dice_loss(torch.sigmoid(masks_pred.squeeze(1)), true_masks)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            global_step += 1
            epoch_loss += loss.item()
            print('epoch %d step %d loss %.5f' % (epoch, global_step, loss.item()))

        model.eval()
        dice_score = 0
        with torch.no_grad():
            for image, mask_true in val_loader:
                mask_pred = (torch.sigmoid(model(image)) > 0.5).float()
                dice_score += dice_coeff(mask_pred.squeeze(1), mask_true, reduce_batch_first=False)
        val_score = dice_score / max(len(val_loader), 1)
        scheduler.step(val_score)
        print('Validation Dice score: {:.4f}'.format(float(val_score)))


if __name__ == '__main__':
    main()
