-- The tasks of every server sharing this database (one row per task; payloads are the
-- JSON text the servers wrote). Applied once, in order, by `PostgresTaskStore::connect`,
-- which records it in `snodo_migrations`.
CREATE TABLE snodo_tasks (
    task_id          text PRIMARY KEY,
    -- Whose task it is (NULL: anonymous callers).
    principal        text,
    status           text NOT NULL
        CHECK (status IN ('working', 'input_required', 'completed', 'failed', 'cancelled')),
    status_message   text,
    created_at_ms    bigint NOT NULL,
    updated_at_ms    bigint NOT NULL,
    ttl_ms           bigint NOT NULL,
    -- created_at_ms + ttl_ms: the row may be deleted from then on.
    expires_at_ms    bigint NOT NULL,
    poll_interval_ms bigint NOT NULL,
    -- inputRequests while input_required, the result when completed, the error when failed.
    payload          text,
    -- Input request keys still unanswered, and the answers given so far.
    pending          text[] NOT NULL DEFAULT '{}',
    answer_keys      text[] NOT NULL DEFAULT '{}',
    answer_values    text[] NOT NULL DEFAULT '{}',
    -- Bumped by every change: writers compare and set on it.
    version          bigint NOT NULL,
    -- The server running the task, and until when its lease holds.
    node             text NOT NULL,
    lease_until_ms   bigint NOT NULL
);

-- The sweeper deletes by expiry; bounds count live tasks, per principal too.
CREATE INDEX snodo_tasks_expiry ON snodo_tasks (expires_at_ms);
CREATE INDEX snodo_tasks_principal ON snodo_tasks (principal, expires_at_ms);
-- Unfinished tasks whose lease runs out are found by it.
CREATE INDEX snodo_tasks_leases ON snodo_tasks (lease_until_ms)
    WHERE status IN ('working', 'input_required');
