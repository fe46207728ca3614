/** The oldest Node major the buyer package runs on (`engines.node` of its package.json). */
export const MIN_NODE_MAJOR = 22;

/**
 * The message a bin prints and exits with when this Node is older than {@link MIN_NODE_MAJOR}, or undefined when it
 * is recent enough. It names the Node found and what to install.
 * @example const refusal = checkNodeVersion(process.versions.node) // undefined on Node 22
 */
export function checkNodeVersion(version: string, bin = "service-buyer"): string | undefined {
  const major = Number(version.split(".")[0]);
  if (Number.isInteger(major) && major >= MIN_NODE_MAJOR) return undefined;
  return `${bin} needs Node ${MIN_NODE_MAJOR} or newer; this is Node ${version}. Install Node ${MIN_NODE_MAJOR} (https://nodejs.org, or \`nvm install ${MIN_NODE_MAJOR}\`), or run it under Node ${MIN_NODE_MAJOR} from npm: \`npx -y -p node@${MIN_NODE_MAJOR} -- ${bin}\` where it is installed.\n`;
}
