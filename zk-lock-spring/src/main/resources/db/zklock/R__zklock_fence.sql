-- zk-lock's fence table for fenced transactions (dev.zklock.jdbc.JdbcFencing#fenceTransaction):
-- one row per lock key, the highest fencing token that fenced a transaction on it.
-- H2 and PostgreSQL. Idempotent: a Flyway repeatable migration (add classpath:db/zklock to
-- spring.flyway.locations) or a schema script (spring.sql.init.schema-locations).
CREATE TABLE IF NOT EXISTS zklock_fence (
	fence_key VARCHAR(255) NOT NULL PRIMARY KEY,
	token BIGINT NOT NULL
);
