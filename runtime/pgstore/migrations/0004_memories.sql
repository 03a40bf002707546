-- Long-term memories (the files backend's Markdown files), one row each.
-- folder is the folder the file would be in, relative to the memory dir
-- ("user", "projects/<key>", a subagent's "user/agents/<agent>"...), file
-- its name there; a folder's names are distinct, and so are its files.
-- search is what recall matches, stemmed: the name and the description
-- weighted A and B (a word there counts fully in recall's score), the
-- body D.
CREATE TABLE clawseed.memories (
    folder      text NOT NULL,
    name        text NOT NULL,
    file        text NOT NULL,
    type        text NOT NULL,
    description text NOT NULL,
    body        text NOT NULL,
    created     timestamptz NOT NULL,
    updated     timestamptz NOT NULL,
    search      tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english'::regconfig, name), 'A') ||
        setweight(to_tsvector('english'::regconfig, description), 'B') ||
        setweight(to_tsvector('english'::regconfig, body), 'D')) STORED,
    PRIMARY KEY (folder, name),
    UNIQUE (folder, file)
);

CREATE INDEX memories_search ON clawseed.memories USING gin (search);
