// The hand-written bash reader that lived here was replaced by tree-sitter-bash (shell-tree-sitter.ts).
// Kept only for analyze-walk.ts's import of subsOf, which now lives in shell-ast.ts.
export { subsOf } from "./shell-ast.js";
