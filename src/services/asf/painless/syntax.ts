import type { Value } from './values.js';

/** The syntax tree of a script. Every node keeps its source offset (`at`) for messages. */
export type Expr =
  | { k: 'lit'; at: number; value: Value }
  | { k: 'var'; at: number; name: string }
  | { k: 'member'; at: number; obj: Expr; name: string; safe: boolean }
  | { k: 'index'; at: number; obj: Expr; index: Expr }
  | { k: 'call'; at: number; obj: Expr; name: string; args: Expr[]; safe: boolean }
  | { k: 'static'; at: number; cls: string; name: string; args: Expr[] | null }
  | { k: 'new'; at: number; cls: string; args: Expr[] }
  | { k: 'list'; at: number; items: Expr[] }
  | { k: 'map'; at: number; entries: Array<[Expr, Expr]> }
  | { k: 'unary'; at: number; op: string; arg: Expr }
  | { k: 'binary'; at: number; op: string; left: Expr; right: Expr }
  | { k: 'cond'; at: number; test: Expr; then: Expr; else: Expr }
  | { k: 'elvis'; at: number; left: Expr; right: Expr }
  | { k: 'assign'; at: number; op: string; target: Expr; value: Expr }
  | { k: 'update'; at: number; op: '++' | '--'; prefix: boolean; target: Expr }
  | { k: 'cast'; at: number; type: string; arg: Expr };

export type Stmt =
  | { k: 'expr'; at: number; expr: Expr }
  | { k: 'decl'; at: number; type: string; vars: Array<{ name: string; init?: Expr }> }
  | { k: 'if'; at: number; test: Expr; then: Stmt; else?: Stmt }
  | { k: 'while'; at: number; test: Expr; body: Stmt }
  | { k: 'for'; at: number; init?: Stmt; test?: Expr; update: Expr[]; body: Stmt }
  | { k: 'foreach'; at: number; type: string; name: string; iterable: Expr; body: Stmt }
  | { k: 'block'; at: number; body: Stmt[] }
  | { k: 'return'; at: number; value?: Expr }
  | { k: 'break' | 'continue' | 'empty'; at: number };
