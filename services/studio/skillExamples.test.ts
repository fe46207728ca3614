import { expect } from "chai";
import { cardTemplateSchema } from "../protocol/schemas/card.ts";
import { catalogWriter } from "./catalog/catalogWriter.ts";
import { cardOf } from "./deploy.ts";
import { MAX_SKILL_EXAMPLE_LENGTH, MAX_SKILL_EXAMPLES, skillExamples } from "./skillExamples.ts";
import { specify } from "./specify.ts";
import type { StudioTarget } from "./studioTarget.ts";

const target: StudioTarget = {
  rpcUrl: "http://127.0.0.1:8545",
  hostUrl: "http://127.0.0.1:4030",
  hostToken: "host-token-0123456789",
  marketplaceUrl: "http://127.0.0.1:4000",
  publishToken: "publish-token-0123456789",
  facilitatorUrl: "http://127.0.0.1:4020",
  contracts: {
    token: "0x1111111111111111111111111111111111111111",
    escrow: "0x2222222222222222222222222222222222222222",
    registry: "0x3333333333333333333333333333333333333333",
  },
};

describe("the card's skill examples are the contract's examples", function () {
  it("carries each example's request and response, and the card stays a strict card template", async function () {
    const contract = await specify("Encode text as base64", catalogWriter());
    const card = cardOf(contract, target);
    expect(cardTemplateSchema.safeParse(card).success).to.equal(true);
    const examples = (card.skills[0]?.examples ?? []).map((e) => JSON.parse(e));
    expect(examples).to.deep.equal(contract.examples.map((e) => ({ request: e.input, response: e.output })));
  });

  it(`keeps at most ${MAX_SKILL_EXAMPLES} examples of at most ${MAX_SKILL_EXAMPLE_LENGTH} characters, in order`, function () {
    const long = { input: { text: "x".repeat(MAX_SKILL_EXAMPLE_LENGTH) }, output: {} };
    const examples = [long, ...Array.from({ length: 8 }, (_, i) => ({ input: { i }, output: { twice: 2 * i } }))];
    expect(skillExamples(examples)).to.deep.equal(
      [0, 1, 2, 3, 4].map((i) => `{"request":{"i":${i}},"response":{"twice":${2 * i}}}`),
    );
  });

  it("leaves examples off a card when none is short enough", async function () {
    const contract = await specify("Encode text as base64", catalogWriter());
    const long = { input: { text: "x".repeat(MAX_SKILL_EXAMPLE_LENGTH) }, output: { base64: "" } };
    const card = cardOf({ ...contract, examples: [long, long, long] }, target);
    expect(card.skills[0]).to.not.have.property("examples");
    expect(cardTemplateSchema.safeParse(card).success).to.equal(true);
  });
});
