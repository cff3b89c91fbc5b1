// dist/domain/words.js
function count(n) {
  if (!Number.isInteger(n))
    return String(n);
  const digits = String(Math.abs(n));
  const head = digits.length % 3 || 3;
  let out = digits.slice(0, head);
  for (let i = head; i < digits.length; i += 3)
    out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}
function plural(n, one, many = `${one}s`) {
  return `${count(n)} ${noun(n, one, many)}`;
}
function noun(n, one, many = `${one}s`) {
  return n === 1 ? one : many;
}

export {
  count,
  plural
};
