import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import type { HttpError } from "./httpError.ts";
import { MAX_BODY_DEPTH } from "./jsonDepth.ts";
import { isContentEncoded, readJsonBody } from "./readJsonBody.ts";

describe("isContentEncoded", function () {
  it("takes gzip, br and a list of codings, in any case, as encoded", function () {
    for (const coding of ["gzip", "br", "GZIP", "deflate, gzip"])
      expect(isContentEncoded({ "content-encoding": coding }), coding).to.equal(true);
  });

  it("takes no header, an empty one and identity in any case as no encoding (Identity was refused 415)", function () {
    expect(isContentEncoded({})).to.equal(false);
    for (const coding of ["", "identity", "Identity", " IDENTITY "])
      expect(isContentEncoded({ "content-encoding": coding }), coding).to.equal(false);
  });
});

describe("readJsonBody's depth", function () {
  /** What readJsonBody answers for `text` posted to a loopback server, with the options given. */
  async function read(text: string, maxDepth?: number): Promise<{ status: number; depth?: string }> {
    const server = createServer((req, res) => {
      readJsonBody(req, { maxBytes: 1_048_576, what: "a body", maxDepth }).then(
        () => res.writeHead(200).end("{}"),
        (error: HttpError) => res.writeHead(error.status).end(JSON.stringify({ message: error.message })),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const answer = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: text });
      return { status: answer.status, depth: ((await answer.json()) as { message?: string }).message };
    } finally {
      server.close();
    }
  }
  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

  it("refuses a body deeper than maxDepth when given (an API with a shape of its own)", async function () {
    expect(await read(nested(600), MAX_BODY_DEPTH)).to.deep.equal({
      status: 400,
      depth: "a body nests arrays and objects deeper than 512",
    });
    expect((await read(nested(512), MAX_BODY_DEPTH)).status).to.equal(200);
  });

  it("takes any depth JSON.parse takes without maxDepth: a settlement carries a handler's answer as deep as its schema allows", async function () {
    expect((await read(nested(600))).status).to.equal(200);
  });
});
