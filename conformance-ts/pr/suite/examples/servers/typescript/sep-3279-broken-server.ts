#!/usr/bin/env node

/**
 * SEP-3279 negative-test server: the everything-server's SEP-3279 fixtures
 * (sep-3279-fixtures.ts), each breaking one rule on purpose, at
 * http://localhost:PORT/<breakage>/mcp (one of Sep3279Breakage; `fails-when-repeated`: each tool
 * succeeds once, then fails, as one that changes what the next call finds does). Serves
 * protocol version 2026-12-01 only (and, for `outputs-for-old-clients`, a
 * 2026-07-28 tools/call); any other version is refused with -32022.
 *
 * src/scenarios/server/sep-3279/sep-3279.test.ts asserts that each breakage
 * fails the check ids of the rule it breaks, and only those.
 */

import express from 'express';
import {
  SEP_3279_BREAKAGES,
  SEP_3279_VERSION,
  sep3279Handler
} from './sep-3279-fixtures';

const app = express();
app.use(express.json());
for (const breakage of SEP_3279_BREAKAGES) {
  app.use(`/${breakage}/mcp`, sep3279Handler(breakage));
}
app.use((req, res) => {
  res.status(400).json({
    jsonrpc: '2.0',
    id: req.body?.id ?? null,
    error: {
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported: [SEP_3279_VERSION] }
    }
  });
});

const PORT = process.env.PORT || 3000;
app.listen(Number(PORT), '127.0.0.1', () => {
  console.log(
    `SEP-3279 broken server running on http://localhost:${PORT}/<breakage>/mcp`
  );
});
