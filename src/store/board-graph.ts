/**
 * Finds a cycle in a dependency graph (task → the tasks it waits for) and returns it as a
 * path that starts and ends at the same node, or null. Iterative DFS with colours, so a
 * long chain cannot overflow the stack.
 */
export function findCycle(edges: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  for (const start of edges.keys()) {
    if (state.has(start)) continue;
    const stack: { node: string; next: number }[] = [{ node: start, next: 0 }];
    const onPath: string[] = [start];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const deps = edges.get(top.node) ?? [];
      if (top.next >= deps.length) {
        state.set(top.node, 'done');
        stack.pop();
        onPath.pop();
        continue;
      }
      const dep = deps[top.next++]!;
      const seen = state.get(dep);
      if (seen === 'open') return [...onPath.slice(onPath.indexOf(dep)), dep];
      if (seen === undefined) {
        state.set(dep, 'open');
        stack.push({ node: dep, next: 0 });
        onPath.push(dep);
      }
    }
  }
  return null;
}
