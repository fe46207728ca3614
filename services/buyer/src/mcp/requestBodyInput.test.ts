import { expect } from "chai";
import { connectInMemory } from "../../../../testkit/buyer/connectBuyer.ts";
import textStats from "../../../host/samples/text-stats.json" with { type: "json" };

const one = `0x${"ab".repeat(32)}`;

type Listed = { name: string; inputSchema: { properties?: Record<string, Record<string, unknown>> } };

async function bodyOf(env: Record<string, string>) {
  const server = await connectInMemory(env);
  try {
    const { tools } = await server.client.listTools();
    const call = (tools as Listed[]).find((t) => t.name === "call_resource");
    return call?.inputSchema.properties?.body ?? {};
  } finally {
    await server.close();
  }
}

describe("call_resource's body input", function () {
  it("is the resource's request schema in a per-endpoint server given SERVICE_REQUEST_SCHEMA", async function () {
    const body = await bodyOf({
      SERVICE_RESOURCE_IDS: one,
      SERVICE_REQUEST_SCHEMA: JSON.stringify(textStats.requestSchema),
    });
    expect(body.type).to.equal("object");
    expect(body.required).to.deep.equal(["text"]);
    expect(body.properties).to.deep.include({ text: { type: "string", maxLength: 100000 } });
    expect(body.additionalProperties).to.equal(false);
  });

  it("is any JSON object otherwise (never untyped, so a client never sends it as a string), saying where the schema is", async function () {
    const schema = JSON.stringify(textStats.requestSchema);
    for (const env of [{}, { SERVICE_REQUEST_SCHEMA: schema }] as Record<string, string>[]) {
      const body = await bodyOf(env);
      expect(body.type).to.equal("object");
      expect(body.description).to.include("extensions.bazaar");
    }
  });

  it("a body sent as a string is refused by the server's input check, before anything is paid", async function () {
    const server = await connectInMemory({
      SERVICE_RESOURCE_IDS: one,
      SERVICE_REQUEST_SCHEMA: JSON.stringify(textStats.requestSchema),
    });
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

  it("a malformed SERVICE_REQUEST_SCHEMA is a named setting problem", async function () {
    const { loadBuyerConfig } = await import("./loadBuyerConfig.ts");
    expect(loadBuyerConfig({ SERVICE_REQUEST_SCHEMA: "{not json" }).problems.SERVICE_REQUEST_SCHEMA).to.match(
      /JSON Schema/,
    );
    expect(loadBuyerConfig({ SERVICE_REQUEST_SCHEMA: '""' }).problems).to.deep.equal({});
  });
});
