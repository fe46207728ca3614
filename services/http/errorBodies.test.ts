import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import Router from "@koa/router";
import { expect } from "chai";
import Koa from "koa";
import pino from "pino";
import { errorBodySchema } from "../protocol/schemas/errorBody.ts";
import { errorBodies } from "./errorBodies.ts";
import { listen } from "./listen.ts";

describe("errorBodies", function () {
  let server: Server;
  let url: string;

  before(async function () {
    const app = new Koa();
    const router = new Router();
    router.get("/thing", (koa) => {
      koa.body = { ok: true };
    });
    app.use(errorBodies({ logger: pino({ level: "silent" }) }));
    app.use(router.routes());
    app.use(router.allowedMethods());
    server = await listen(app, 0, "127.0.0.1");
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(function () {
    server?.close();
  });

  async function answer(method: string, path: string) {
    const response = await fetch(`${url}${path}`, { method });
    return { status: response.status, response, body: errorBodySchema.parse(JSON.parse(await response.text())) };
  }

  it("answers a path no route serves with a JSON 404 not_found", async function () {
    const { status, body } = await answer("GET", "/nothing");
    expect(status).to.equal(404);
    expect(body.error.code).to.equal("not_found");
  });

  it("answers a method the route does not take with a JSON 405 method_not_allowed, Allow kept (it was text/plain)", async function () {
    const { status, response, body } = await answer("PUT", "/thing");
    expect(status).to.equal(405);
    expect(response.headers.get("content-type")).to.match(/^application\/json/);
    expect(response.headers.get("allow")).to.match(/GET/);
    expect(body.error).to.deep.equal({ code: "method_not_allowed", message: "/thing takes HEAD, GET" });
  });

  it("answers a method no route takes with a JSON 501", async function () {
    const { status, body } = await answer("PURGE", "/thing");
    expect(status).to.equal(501);
    expect(body.error.code).to.equal("method_not_allowed");
  });
});
