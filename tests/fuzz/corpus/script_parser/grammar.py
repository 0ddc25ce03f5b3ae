@torch.jit.export
def f(self, x: Tensor, ys: List[int], *, k: int = 2) -> Tuple[Tensor, Optional[int]]:
    # type: (Tensor, List[int], int) -> Tuple[Tensor, Optional[int]]
    """Doc."""
    a, *b = ys
    c: Dict[str, int] = {'a': 0x1F, "b": 1_000, 'c\n': -2 ** 3, r'\d': 0o17 | 0b1}
    d = [i * 2 for i in ys if i % 2 == 0]
    e = {k: v for k, v in c.items()}
    if x is not None and not k in ys or len(d) >= 3:
        x += 1.5e-3
    elif k != 0: pass
    else:
        raise ValueError('bad' "value" """!""")
    while k > 0:
        k -= 1; continue
    for i, j in zip(ys, d):
        if i: break
    with torch.no_grad():
        y = x[0, 1:, ::2][..., -1] if k else x @ x
    assert k == 0, "k"
    del c['a']
    z = []  # type: List[int]
    return (x, \
            None)
