/**
 * Whether process `pid` is alive on this machine (a process of another user counts: signalling it is refused, not
 * unknown). Used to tell a lock or a folder that a crashed process left from one still in use.
 * @example if (!processAlive(holder.pid)) takeOver()
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}
