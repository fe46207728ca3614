import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { facilitatorEnv, postJson, spawnFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { writeKeystore, writePasswordFile } from "../../../testkit/keys/writeKeystore.ts";
import { until } from "../../../testkit/until.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";

const CAP = 50_000n;
const PASSWORD = "relayer-pass-phrase-9f2c";

describe("a facilitator keyed by keystore files", function () {
  this.timeout(120_000);
  let chain: LocalChain;
  let resourceId: Hex;
  let dir: string;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));
  const relayerKey = devKey(ROLE.relayer);
  const facilitatorKey = devKey(ROLE.facilitator);
  const children: ChildProcess[] = [];

  /** The settings with both keys given as keystores, not as hex. */
  function keystoreEnv(passwordFile: string): Record<string, string> {
    const { RELAYER_KEYS: _r, FACILITATOR_KEY: _f, ...env } = facilitatorEnv(chain);
    return {
      ...env,
      DATA_DIR: "memory://",
      LOG_LEVEL: "trace",
      RELAYER_KEYS_FILE: join(dir, "relayer.json"),
      RELAYER_KEYS_PASSWORD_FILE: passwordFile,
      FACILITATOR_KEY_FILE: join(dir, "facilitator.json"),
      FACILITATOR_KEY_PASSWORD_FILE: passwordFile,
    };
  }

  /** Fails if the text holds either key, in any case, with or without 0x, or the password. */
  function expectNoSecret(text: string): void {
    for (const secret of [relayerKey.slice(2), facilitatorKey.slice(2), PASSWORD])
      expect(text.toLowerCase()).not.to.include(secret.toLowerCase());
  }

  before(async function () {
    dir = mkdtempSync(join(tmpdir(), "facilitator-keystores-"));
    writeKeystore(join(dir, "relayer.json"), relayerKey, PASSWORD);
    writeKeystore(join(dir, "facilitator.json"), facilitatorKey, PASSWORD);
    writePasswordFile(join(dir, "relayer.password"), PASSWORD);
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "keystore-echo", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, 1_000_000n);
  });

  after(async function () {
    for (const child of children) child.kill("SIGKILL");
    await chain?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("settles with the relayer key from its keystore, and no key or password reaches its log", async function () {
    const started = await spawnFacilitator(keystoreEnv(join(dir, "relayer.password")));
    children.push(started.child);
    await until(async () => ((await fetch(`${started.url}/ready`)).ok ? true : undefined), 60_000, "/ready");
    const payload = await signEscrowPayment({
      account: buyer,
      escrow: chain.addresses.escrow,
      resourceId,
      maxAmount: CAP,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 300),
    });
    const idemKey = payload.authorization.nonce;
    const verified = await postJson(`${started.url}/verify`, {
      paymentPayload: payload,
      resourceId,
      maxTimeoutSeconds: 60,
    });
    expect(verified.body.isValid, JSON.stringify(verified.body)).to.equal(true);
    const response = { status: 200, contentType: "application/json", body: { ok: true } };
    const settled = await postJson(`${started.url}/settle`, { idemKey, resourceId, amount: "1200", response });
    expect(settled.status).to.equal(200);
    expect(await chain.contracts.escrow.read.nonceUsed([buyer.address, idemKey])).to.equal(true);
    const log = started.output();
    expect(log).to.include(privateKeyToAccount(relayerKey).address);
    expectNoSecret(log);
  });

  it("refuses to start on a wrong password, naming the setting and the file, never the key or the password", async function () {
    const wrong = writePasswordFile(join(dir, "wrong.password"), `not-${PASSWORD}`);
    const error = await spawnFacilitator(keystoreEnv(wrong)).then(
      () => expect.fail("the facilitator started with a wrong password"),
      (e: Error) => e,
    );
    expect(error.message).to.include("exited with 2");
    expect(error.message).to.include(
      `RELAYER_KEYS_FILE: ${join(dir, "relayer.json")}: wrong password (the keystore's MAC does not match); check RELAYER_KEYS_PASSWORD_FILE`,
    );
    expect(error.message).to.include(`FACILITATOR_KEY_FILE: ${join(dir, "facilitator.json")}: wrong password`);
    expect(error.message).not.to.match(/\n\s+at /);
    expectNoSecret(error.message.replace(`not-${PASSWORD}`, ""));
  });

  it("refuses to start on a missing keystore file, naming the setting", async function () {
    const env = { ...keystoreEnv(join(dir, "relayer.password")), RELAYER_KEYS_FILE: join(dir, "absent.json") };
    const error = await spawnFacilitator(env).then(
      () => expect.fail("the facilitator started without its keystore"),
      (e: Error) => e,
    );
    expect(error.message).to.include(`RELAYER_KEYS_FILE: cannot read ${join(dir, "absent.json")} (no such file)`);
    expect(error.message).not.to.match(/\n\s+at /);
  });
});
