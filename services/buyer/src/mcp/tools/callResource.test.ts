import { expect } from "chai";
import { z } from "zod";
import { connectInMemory } from "../../../../../testkit/buyer/connectBuyer.ts";
import { requestBodyInput } from "./toolShapes.ts";

const one = `0x${"ab".repeat(32)}`;

type Listed = { name: string; inputSchema: { properties?: Record<string, Record<string, unknown>> } };

describe("call_resource's body input", function () {
  it("is any JSON object (never untyped, so a client never sends it as a string), saying where the schema and the typed tools are", async function () {
    for (const env of [{}, { SERVICE_RESOURCE_IDS: one }] as Record<string, string>[]) {
      const server = await connectInMemory(env);
      try {
        const { tools } = await server.client.listTools();
        const body = (tools as Listed[]).find((t) => t.name === "call_resource")?.inputSchema.properties?.body ?? {};
        expect(body.type).to.equal("object");
        expect(body.description).to.include("extensions.bazaar").and.to.include("add_tools");
      } finally {
        await server.close();
      }
    }
  });

  it("a body sent as a string is refused by the server's input check, before anything is paid", async function () {
    const server = await connectInMemory({ SERVICE_RESOURCE_IDS: one });
    try {
      const result = (await server.client.callTool({ name: "call_resource", arguments: { body: '{"text":"x"}' } })) as {
        isError?: boolean;
        content: { text?: string }[];
      };
      expect(result.isError).to.equal(true);
      expect(result.content[0]?.text).to.match(/Input validation error/i);
      expect(server.stderr()).to.not.include("demo started");
    } finally {
      await server.close();
    }
  });

  it("passes the object the client sent through unchanged, a __proto__ key included, rather than a copy without it", function () {
    const sent = JSON.parse('{"body":{"__proto__":{"a":1},"b":2}}');
    const checked = z.strictObject({ body: requestBodyInput }).parse(sent);
    expect(checked.body).to.equal(sent.body);
    expect(JSON.stringify(checked.body)).to.equal('{"__proto__":{"a":1},"b":2}');
  });
});
