/** True when `ids` starts with `head` followed by the first `tailLength` tokens of `tail`. */
export function startsWithConcat(ids: ArrayLike<number>, head: ArrayLike<number>, tail: ArrayLike<number>, tailLength = tail.length): boolean {
  if (ids.length < head.length + tailLength) return false;
  for (let i = 0; i < head.length; i++) if (ids[i] !== head[i]) return false;
  const offset = head.length;
  for (let i = 0; i < tailLength; i++) if (ids[offset + i] !== tail[i]) return false;
  return true;
}
