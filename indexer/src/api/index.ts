import { db } from "ponder:api";
import schema from "ponder:schema";
import { Hono } from "hono";
import { client } from "ponder";

/**
 * Reads: `/sql/*` is SQL over HTTP for `@ponder/client` (read-only, validated by Ponder, answered from its live-query
 * cache), which is how the marketplace and the facilitator read the projections. Ponder itself serves `/health`,
 * `/ready` (historical backfill complete) and `/status` (the last indexed block).
 */
const app = new Hono();

app.use("/sql/*", client({ db, schema }));

export default app;
