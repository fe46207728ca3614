/**
 * The marketplace's schema versions, applied in order by services/store (append; never edit an applied one).
 * `seq` columns take the next value of one sequence on every write (`next_change_seq()`, which commits them in order),
 * so every instance's catalog can pull what changed since it last looked. Times are unix milliseconds.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE SEQUENCE change_seq;
   CREATE TABLE listing (
     resource_id    TEXT PRIMARY KEY,
     creator        TEXT NOT NULL,
     slug           TEXT NOT NULL,
     resource_url   TEXT NOT NULL,
     card_text      TEXT NOT NULL,
     card_hash      TEXT NOT NULL,
     sample_request JSONB NOT NULL,
     agent_id       TEXT NOT NULL,
     status         TEXT NOT NULL CHECK (status IN ('pending','published','removed')),
     created_at     BIGINT NOT NULL,
     updated_at     BIGINT NOT NULL,
     seq            BIGINT NOT NULL DEFAULT nextval('change_seq')
   );
   CREATE INDEX listing_seq ON listing (seq);
   CREATE TABLE agent_registration (
     resource_id TEXT PRIMARY KEY,
     agent_id    TEXT NOT NULL,
     creator     TEXT NOT NULL,
     name        TEXT NOT NULL,
     description TEXT NOT NULL,
     minted_tx   TEXT NOT NULL,
     created_at  BIGINT NOT NULL
   );
   CREATE TABLE probe (
     resource_id TEXT PRIMARY KEY,
     history     TEXT NOT NULL,
     last_ok     BOOLEAN NOT NULL,
     last_error  TEXT,
     checked_at  BIGINT NOT NULL,
     seq         BIGINT NOT NULL DEFAULT nextval('change_seq')
   );
   CREATE INDEX probe_seq ON probe (seq);`,
  /*
   * 2: a seq is taken under a lock held until its write commits (`next_change_seq`), so seqs commit in their order.
   * With nextval alone, on PostgreSQL a write could take seq 41, another 42 and commit first, and an instance pulling
   * between the two commits moved its cursor past 41 and never read that write.
   */
  `CREATE FUNCTION next_change_seq() RETURNS BIGINT LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
   BEGIN
     PERFORM pg_advisory_xact_lock(hashtextextended('change_seq:' || current_schema(), 0));
     RETURN nextval('change_seq');
   END $$;
   ALTER TABLE listing ALTER COLUMN seq SET DEFAULT next_change_seq();
   ALTER TABLE probe ALTER COLUMN seq SET DEFAULT next_change_seq();`,
];
