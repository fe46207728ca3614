import { fixtureMarketplace } from "../../testkit/buyer/fixtureMarketplace.ts";
import { runPluginsCommand } from "../../testkit/buyer/runPluginsCommand.ts";
import { validCard, validIndexRecord } from "../../testkit/protocol/fixtures.ts";

const r = validIndexRecord();
const m = await fixtureMarketplace({ records: [{ ...r, cardUrl: "" }], cards: new Map() });
m.content.cards.set(`/${r.resourceId}/.well-known/agent-card.json`, validCard());
(m.content.records[0] as any).cardUrl = m.cardUrl(r.resourceId);
console.log(
  await runPluginsCommand("generate", "--marketplace-url", m.url, "--out", "/tmp/bp/gen", "--local", "--enrich"),
);
await m.close();
