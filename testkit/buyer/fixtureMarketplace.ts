import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** What a fixture marketplace serves: index records (any shape) and card bodies by path. */
export type FixtureMarketplaceContent = { records: unknown[]; cards: Map<string, unknown> };

/**
 * A marketplace's read routes over a real HTTP socket, serving given content: `GET /resources` with `active`,
 * `limit`, `offset` and `X-Total-Count` as PROTOCOL.md has them, and any card path. It stands in where a test needs records or
 * cards the real marketplace would never serve (a card failing the schema, a card paying another resource).
 * @example const market = await fixtureMarketplace({ records: [], cards: new Map() }); ...; await market.close()
 */
export async function fixtureMarketplace(content: FixtureMarketplaceContent) {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fixture");
    requests.push(`${url.pathname}${url.search}`);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === "/resources") {
      const limit = Number(url.searchParams.get("limit") ?? 1000);
      const offset = Number(url.searchParams.get("offset") ?? 0);
      const active = url.searchParams.get("active");
      const matching = content.records.filter(
        (r) => active === null || (r as { active?: unknown }).active === (active === "true"),
      );
      return send(200, matching.slice(offset, offset + limit), { "x-total-count": String(matching.length) });
    }
    const card = content.cards.get(url.pathname);
    if (card !== undefined) return send(200, card);
    return send(404, { error: { code: "not_found", message: "no such resource" } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    content,
    requests,
    cardUrl: (resourceId: string) => `${url}/${resourceId}/.well-known/agent-card.json`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
