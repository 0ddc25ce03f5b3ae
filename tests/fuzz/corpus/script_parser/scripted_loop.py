def scripted_loop(x: Tensor,
    n: int) -> Tensor:
  out = [x]
  for i in range(n):
    if torch.eq(torch.remainder(i, 2), 0):
      _0 = torch.append(out, torch.mul(out[-1], 2))
    else:
      _1 = torch.append(out, torch.relu(out[-1]))
  _2 = annotate(List[Tensor], [])
  for _3 in range(torch.len(out)):
    t = out[_3]
    _4 = torch.append(_2, torch.sum(t))
  return torch.stack(_2)
