/**
 * Schema versions, applied in order and recorded in `migration`. Append; never edit an applied one.
 * Amounts are NUMERIC(78,0) (any uint256); times are unix seconds from the service clock.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE reservation (
     idem_key     TEXT PRIMARY KEY,
     scheme       TEXT NOT NULL,
     buyer        TEXT NOT NULL,
     resource_id  TEXT NOT NULL,
     cap          NUMERIC(78,0) NOT NULL,
     payload      JSONB NOT NULL,
     valid_before BIGINT NOT NULL,
     status       TEXT NOT NULL CHECK (status IN ('reserved','settling','settled','released','expired')),
     amount       NUMERIC(78,0),
     response     JSONB,
     tx_hash      TEXT,
     lease_until  BIGINT NOT NULL DEFAULT 0,
     created_at   BIGINT NOT NULL,
     updated_at   BIGINT NOT NULL
   );
   CREATE INDEX reservation_live ON reservation (buyer) WHERE status IN ('reserved','settling');
   CREATE INDEX reservation_settling ON reservation (status, lease_until) WHERE status = 'settling';
   CREATE TABLE result (
     idem_key    TEXT PRIMARY KEY,
     resource_id TEXT NOT NULL,
     response    JSONB NOT NULL,
     receipt     TEXT NOT NULL,
     body        JSONB NOT NULL,
     settled_at  BIGINT NOT NULL,
     expires_at  BIGINT NOT NULL
   );
   CREATE INDEX result_expiry ON result (expires_at);
   CREATE TABLE strike (
     idem_key    TEXT PRIMARY KEY,
     resource_id TEXT NOT NULL,
     reason      TEXT NOT NULL,
     status      TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued','recorded','failed')),
     attempts    INTEGER NOT NULL DEFAULT 0,
     tx_hash     TEXT,
     last_error  TEXT,
     lease_until BIGINT NOT NULL DEFAULT 0,
     created_at  BIGINT NOT NULL
   );`,
];
