class Point(NamedTuple):
  x: int
  y: Optional[Tensor] = None
class M(Module):
  __parameters__ = ["weight", ]
  weight : Tensor
  eps : Final[float] = 1.0000000000000001e-05
  def forward(self: __torch__.M,
    x: Tensor) -> Tensor:
    _0 = ops.prim.unchecked_unwrap_optional(annotate(Optional[Tensor], x))
    return torch.add(_0, self.weight, alpha=1)
