import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { searchResources } from "./searchResources.ts";

describe("searchResources", function () {
  it("sends each filter as the marketplace's query parameter, booleans as true/false, and reads X-Total-Count", async function () {
    const asked: string[] = [];
    const server = createServer((req, res) => {
      asked.push(req.url ?? "");
      res.setHeader("content-type", "application/json");
      res.setHeader("x-total-count", "7");
      res.end("[]");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const found = await searchResources(url, {
        q: "palindrome check",
        payable: true,
        active: false,
        minBasePrice: "7680",
        limit: 5,
      });
      expect(found).to.deep.equal({ resources: [], total: 7, skipped: 0 });
      await searchResources(`${url}/`, { payable: false });
      expect(asked).to.deep.equal([
        "/resources?q=palindrome+check&payable=true&active=false&minBasePrice=7680&limit=5",
        "/resources?payable=false",
      ]);
    } finally {
      server.close();
    }
  });
});
