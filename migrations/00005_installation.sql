-- The installation: an id made once, by the first replica that starts on the database, that
-- sets this log apart from every other (a database copied before any start, such as a
-- template, gets an id of its own). Loan emails carry it in their Message-ID, so that two installations (a
-- staging and a production, say) never send different emails under one id.

-- +goose Up
CREATE TABLE installation (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamptz NOT NULL DEFAULT now(),
    -- There is one row, and only one.
    one        boolean     NOT NULL DEFAULT true UNIQUE CHECK (one)
);

-- +goose Down
DROP TABLE installation;
