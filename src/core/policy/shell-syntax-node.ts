// A plain JavaScript copy of a tree-sitter syntax tree, made in one cursor walk. Every property read on a
// web-tree-sitter Node crosses into WebAssembly; reading the copy instead makes the conversion to the
// command tree ~10x cheaper, and the copy outlives `tree.delete()`.
import type { TreeCursor } from "web-tree-sitter";

export class SyntaxNode {
  readonly children: SyntaxNode[] = [];
  hasError: boolean;

  constructor(
    readonly type: string,
    readonly isNamed: boolean,
    readonly isMissing: boolean,
    readonly startIndex: number,
    readonly endIndex: number,
    /** The field this node fills in its parent (`name`, `argument`, `redirect`…). */
    readonly field: string | null,
    readonly parent: SyntaxNode | null,
    /** Position among the parent's children. */
    readonly index: number,
  ) {
    this.hasError = this.isError || isMissing;
  }

  get isError(): boolean {
    return this.type === "ERROR";
  }

  fieldNameForChild(index: number): string | null {
    return this.children[index]?.field ?? null;
  }

  childForFieldName(field: string): SyntaxNode | null {
    return this.children.find((child) => child.field === field) ?? null;
  }

  get previousSibling(): SyntaxNode | null {
    return this.parent?.children[this.index - 1] ?? null;
  }

  get nextSibling(): SyntaxNode | null {
    return this.parent?.children[this.index + 1] ?? null;
  }

  descendantsOfType(type: string): SyntaxNode[] {
    const found: SyntaxNode[] = [];
    const stack: SyntaxNode[] = [...this.children];
    while (stack.length) {
      const node = stack.pop() as SyntaxNode;
      if (node.type === type) found.push(node);
      stack.push(...node.children);
    }
    return found;
  }
}

/** Copies the tree under the cursor's node. Iterative: a 3 000-long `&&` chain is 3 000 levels deep. */
export function copySyntaxTree(cursor: TreeCursor): SyntaxNode {
  const all: SyntaxNode[] = [];
  const make = (parent: SyntaxNode | null): SyntaxNode => {
    const node = new SyntaxNode(
      cursor.nodeType,
      cursor.nodeIsNamed,
      cursor.nodeIsMissing,
      cursor.startIndex,
      cursor.endIndex,
      parent ? cursor.currentFieldName : null,
      parent,
      parent ? parent.children.length : 0,
    );
    parent?.children.push(node);
    all.push(node);
    return node;
  };
  const root = make(null);
  let current = root;
  walk: for (;;) {
    if (cursor.gotoFirstChild()) {
      current = make(current);
      continue;
    }
    for (;;) {
      if (current !== root && cursor.gotoNextSibling()) {
        current = make(current.parent);
        break;
      }
      if (current === root || !cursor.gotoParent()) break walk;
      current = current.parent as SyntaxNode;
    }
  }
  // children were made after their parents: one backwards pass carries errors up
  for (let i = all.length - 1; i > 0; i--) {
    const node = all[i] as SyntaxNode;
    if (node.hasError && node.parent) node.parent.hasError = true;
  }
  return root;
}
