"""A small PyTorch workload for the GPU tests: matrix products, an elementwise chain and a
reduction on the GPU, a few iterations. Prints one line with the result."""

import torch


def main():
    device = torch.device("cuda")
    a = torch.randn(2048, 2048, device=device)
    b = torch.randn(2048, 2048, device=device)
    total = torch.zeros((), device=device)
    for _ in range(10):
        c = a @ b
        d = torch.relu(c) * 0.5 + 1.0
        total += d.sum()
    torch.cuda.synchronize()
    print(f"torch_program: {float(total):.3e}")


if __name__ == "__main__":
    main()
