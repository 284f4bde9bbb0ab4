// The sessions list as a tree: a fork (or an Edit and resend) under the
// session it came from (its `forkOf`), a fork of a fork under its own parent;
// a subtask's child session under the session whose `task` call started it (its `parent`).
// A fork whose origin is not in the list (deleted, archived and hidden, not
// matched by a search) stands at the top. A group sits where its most recent
// activity puts it, so a busy fork does not sink below its quiet origin.
import type { ListedSession } from '../shared/protocol.js';

export interface SessionNode {
  session: ListedSession;
  children: SessionNode[];
  /** Every session under this one (children, their children…). */
  descendants: number;
  /** The most recent activity in the group (this session and everything under it). */
  latest: string;
}

/** The parent of each session that has one in the list (never a cycle: a loop is cut where it closes). */
function parents(sessions: ListedSession[]): Map<string, string> {
  const present = new Set(sessions.map((s) => s.id));
  const parent = new Map<string, string>();
  for (const s of sessions) {
    const origin = s.forkOf?.session ?? s.parent?.session;
    if (origin && origin !== s.id && present.has(origin)) parent.set(s.id, origin);
  }
  for (const s of sessions) {
    const seen = new Set([s.id]);
    for (let at = parent.get(s.id); at; at = parent.get(at)) {
      if (!seen.has(at)) {
        seen.add(at);
        continue;
      }
      parent.delete(s.id);
      break;
    }
  }
  return parent;
}

export function sessionTree(sessions: ListedSession[]): SessionNode[] {
  const parent = parents(sessions);
  const nodes = new Map(sessions.map((s) => [s.id, { session: s, children: [], descendants: 0, latest: s.lastActivity } as SessionNode]));
  const roots: SessionNode[] = [];
  for (const s of sessions) {
    const up = parent.get(s.id);
    (up ? nodes.get(up)!.children : roots).push(nodes.get(s.id)!);
  }
  const settle = (node: SessionNode): void => {
    for (const child of node.children) {
      settle(child);
      node.descendants += 1 + child.descendants;
      if (child.latest > node.latest) node.latest = child.latest;
    }
    node.children.sort(byLatest);
  };
  roots.forEach(settle);
  return roots.sort(byLatest);
}

/** The sessions above `id` in the tree, nearest first: opened so the session one is in is always visible. */
export function ancestorsOf(sessions: ListedSession[], id: string): string[] {
  const parent = parents(sessions);
  const out: string[] = [];
  for (let at = parent.get(id); at; at = parent.get(at)) out.push(at);
  return out;
}

// ISO times compare as strings.
const byLatest = (a: SessionNode, b: SessionNode) => (a.latest < b.latest ? 1 : a.latest > b.latest ? -1 : 0);
