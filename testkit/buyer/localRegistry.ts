import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { sleep } from "../sleep.ts";

const repo = new URL("../../", import.meta.url).pathname;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/**
 * A real npm registry on loopback: verdaccio from node_modules on a free port, with its config, storage and
 * htpasswd in `dir`, no uplinks (nothing reaches the public registry). A throwaway user is created and its token goes
 * into `dir/.npmrc` only; `env` points npm at that file, at the registry and at a cache of its own.
 * @example const registry = await startLocalRegistry(tmp); ...; await registry.stop()
 */
export async function startLocalRegistry(dir: string) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  mkdirSync(join(dir, "storage"), { recursive: true });
  writeFileSync(
    join(dir, "config.yaml"),
    `storage: ${join(dir, "storage")}
auth:
  htpasswd:
    file: ${join(dir, "htpasswd")}
    max_users: 10
uplinks: {}
packages:
  "**":
    access: $all
    publish: $authenticated
max_body_size: 500mb
log: { type: stdout, format: pretty, level: error }
`,
  );
  const child: ChildProcess = spawn(
    join(repo, "node_modules/.bin/verdaccio"),
    ["--config", join(dir, "config.yaml"), "--listen", `127.0.0.1:${port}`],
    { stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let log = "";
  child.stdout?.on("data", (c: Buffer) => (log += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (log += c.toString()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode}:\n${log}`);
    const up = await fetch(`${url}-/ping`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`verdaccio did not answer on ${url}:\n${log}`);
    await sleep(200);
  }
  const user = `tester${port}`;
  const created = await fetch(`${url}-/user/org.couchdb.user:${user}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: user, password: `pw-${port}-${Date.now()}` }),
  });
  const { token } = (await created.json()) as { token?: string };
  if (!token) throw new Error(`verdaccio created no user (${created.status})`);
  const npmrc = join(dir, ".npmrc");
  writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  const env = {
    npm_config_userconfig: npmrc,
    npm_config_registry: url,
    npm_config_cache: join(dir, "npm-cache"),
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  };
  return {
    url,
    token,
    env,
    log: () => log,
    /** Publishes an installed package folder as npm's own publish request does (tarball in the body). */
    async publishInstalled(packageDir: string): Promise<void> {
      const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
        name: string;
        version: string;
      };
      const tarball = execFileSync(
        "tar",
        ["-czf", "-", "--exclude=./node_modules", "--transform", "s,^\\.,package,", "-C", packageDir, "."],
        { maxBuffer: 1 << 30 },
      );
      const file = `${manifest.name.split("/").pop()}-${manifest.version}.tgz`;
      const name = manifest.name.replace("/", "%2f");
      const body = {
        _id: manifest.name,
        name: manifest.name,
        "dist-tags": { latest: manifest.version },
        versions: {
          [manifest.version]: {
            ...manifest,
            _id: `${manifest.name}@${manifest.version}`,
            dist: {
              tarball: `${url}${manifest.name}/-/${file}`,
              shasum: createHash("sha1").update(tarball).digest("hex"),
              integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
            },
          },
        },
        _attachments: {
          [file]: {
            content_type: "application/octet-stream",
            data: tarball.toString("base64"),
            length: tarball.length,
          },
        },
      };
      const request = {
        method: "PUT",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      };
      // A busy machine can drop the connection of a large publish (the EDR binding is tens of MB of base64); a
      // publish is idempotent here (409 is the same version already stored), so a dropped one is sent again.
      let response: Response | undefined;
      for (let attempt = 1; !response; attempt++) {
        response = await fetch(`${url}${name}`, request).catch((error: Error) => {
          if (attempt >= 3)
            throw new Error(
              `publishing ${manifest.name}@${manifest.version}: ${error.message} (${String(error.cause)})\n${log}`,
            );
          return undefined;
        });
      }
      if (!response.ok && response.status !== 409)
        throw new Error(`publishing ${manifest.name}@${manifest.version}: ${response.status} ${await response.text()}`);
    },
    stop(): void {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {}
    },
  };
}

/**
 * Every installed package folder a package's runtime `dependencies` need (non-optional peers included), resolved
 * from `from` the way Node resolves them, so they can be published to a registry without uplinks.
 * @example const dirs = dependencyClosure(join(repo, "services/buyer"))
 */
export function dependencyClosure(from: string): string[] {
  const seen = new Set<string>();
  const resolveDir = (name: string, start: string): string | undefined => {
    for (let dir = start; ; dir = dirname(dir)) {
      const candidate = join(dir, "node_modules", name);
      if (existsSync(join(candidate, "package.json"))) return candidate;
      if (dirname(dir) === dir) return undefined;
    }
  };
  const visit = (dir: string): void => {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    const peers = Object.keys(pkg.peerDependencies ?? {}).filter((p) => !pkg.peerDependenciesMeta?.[p]?.optional);
    for (const name of [
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.optionalDependencies ?? {}),
      ...peers,
    ]) {
      const found = resolveDir(name, dir);
      if (!found || seen.has(found)) continue;
      seen.add(found);
      visit(found);
    }
  };
  visit(from);
  return [...seen].sort();
}
