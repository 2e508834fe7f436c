// RFC 6902 JSON Patch (add, remove, replace, move, copy, test) over RFC 6901 JSON Pointers.
// applyPatch never changes its input: it returns a new document, or throws PatchError and the
// caller keeps the old one (a patch applies whole or not at all).

export class PatchError extends Error {}

export function applyPatch(document, patch) {
  if (!Array.isArray(patch)) throw new PatchError('a patch is an array of operations');
  let doc = structuredClone(document);
  for (const operation of patch) doc = applyOperation(doc, operation);
  return doc;
}

export function parsePointer(pointer) {
  if (pointer === '') return [];
  if (typeof pointer !== 'string' || !pointer.startsWith('/')) {
    throw new PatchError(`bad JSON pointer ${JSON.stringify(pointer)}`);
  }
  return pointer.slice(1).split('/').map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function applyOperation(doc, operation) {
  const { op, path } = operation;
  const tokens = parsePointer(path);
  switch (op) {
    case 'add':
      requireValue(operation);
      return add(doc, tokens, structuredClone(operation.value));
    case 'remove':
      return remove(doc, tokens);
    case 'replace':
      requireValue(operation);
      get(doc, tokens); // the target must exist
      return add(remove(doc, tokens), tokens, structuredClone(operation.value));
    case 'move': {
      const from = parsePointer(operation.from);
      if (from.length < tokens.length && from.every((token, i) => token === tokens[i])) {
        throw new PatchError(`cannot move ${operation.from} into its own child ${path}`);
      }
      const value = get(doc, from);
      return add(remove(doc, from), tokens, value);
    }
    case 'copy':
      return add(doc, tokens, structuredClone(get(doc, parsePointer(operation.from))));
    case 'test':
      requireValue(operation);
      if (!deepEqual(get(doc, tokens), operation.value)) throw new PatchError(`test failed at ${path}`);
      return doc;
    default:
      throw new PatchError(`unknown operation ${JSON.stringify(op)}`);
  }
}

function requireValue(operation) {
  if (!('value' in operation)) throw new PatchError(`${operation.op} at ${operation.path} needs a value`);
}

function arrayIndex(array, token, { allowEnd }) {
  if (allowEnd && token === '-') return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`bad array index ${JSON.stringify(token)}`);
  const index = Number(token);
  if (index > array.length || (!allowEnd && index === array.length)) {
    throw new PatchError(`array index ${index} out of range`);
  }
  return index;
}

function isContainer(value) {
  return value !== null && typeof value === 'object';
}

function hasKey(object, key) {
  return Object.prototype.hasOwnProperty.call(object, key);
}

function get(doc, tokens) {
  let node = doc;
  for (const token of tokens) {
    if (Array.isArray(node)) {
      node = node[arrayIndex(node, token, { allowEnd: false })];
    } else if (isContainer(node) && hasKey(node, token)) {
      node = node[token];
    } else {
      throw new PatchError(`no value at /${tokens.join('/')}`);
    }
  }
  return node;
}

function add(doc, tokens, value) {
  if (tokens.length === 0) return value;
  const parent = get(doc, tokens.slice(0, -1));
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    parent.splice(arrayIndex(parent, last, { allowEnd: true }), 0, value);
  } else if (isContainer(parent)) {
    parent[last] = value;
  } else {
    throw new PatchError(`cannot add below a ${typeof parent} at /${tokens.join('/')}`);
  }
  return doc;
}

function remove(doc, tokens) {
  if (tokens.length === 0) throw new PatchError('cannot remove the whole document');
  const parent = get(doc, tokens.slice(0, -1));
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    parent.splice(arrayIndex(parent, last, { allowEnd: false }), 1);
  } else if (isContainer(parent) && hasKey(parent, last)) {
    delete parent[last];
  } else {
    throw new PatchError(`no value to remove at /${tokens.join('/')}`);
  }
  return doc;
}

export function deepEqual(a, b) {
  if (a === b) return true;
  if (!isContainer(a) || !isContainer(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  return keysA.length === keysB.length && keysA.every((key) => hasKey(b, key) && deepEqual(a[key], b[key]));
}
