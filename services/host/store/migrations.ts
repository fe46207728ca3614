/**
 * The host's schema versions, applied in order by services/store (append; never edit an applied one). A deployment
 * is kept as the JSON text the host wrote (so its card and schemas come back byte for byte), beside the columns the
 * host looks rows up by; `version` takes the next value of a sequence on every write, so every host instance can
 * tell which deployments changed; `seal` is the record's `deploymentSeal`, without which the row is not served.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE SEQUENCE deployment_version;
   CREATE TABLE deployment (
     slug        TEXT PRIMARY KEY,
     creator     TEXT NOT NULL,
     resource_id TEXT NOT NULL,
     version     BIGINT NOT NULL DEFAULT nextval('deployment_version'),
     record      TEXT NOT NULL
   );`,
  `ALTER TABLE deployment ADD COLUMN seal TEXT;`,
];
