import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { PONDER_PATCHES } from "./patches.ts";

const ponderDist = fileURLToPath(new URL("../../node_modules/ponder/dist/esm/", import.meta.url));
const modules = (readdirSync(ponderDist, { recursive: true }) as string[])
  .filter((file) => file.endsWith(".js"))
  .map((file) => join(ponderDist, file));

describe("the Ponder patches (patches.ts)", () => {
  for (const { module, patch } of PONDER_PATCHES)
    it(`${module} names exactly one module of the installed Ponder, and its patch applies`, () => {
      const matching = modules.filter((file) => module.test(file.replaceAll("\\", "/")));
      expect(matching).to.have.length(1);
      const source = readFileSync(matching[0] as string, "utf8");
      expect(patch(source)).to.not.equal(source);
    });
});
