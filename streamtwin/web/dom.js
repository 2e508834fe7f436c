// The one DOM helper every panel uses: all text goes through textContent, never HTML.

export function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}
