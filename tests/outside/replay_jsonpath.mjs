// Replays JSONPath queries with the npm RFC 9535 library (jsonpath-rfc9535), for
// tests/outside/test_vectors_jsonpath.py: reads {"documents": [...], "cases": [{"path", "document"}]}
// from the file named by the first argument and prints, for each case, {"values": [...]} or {"error": "..."}.
import { readFileSync } from "node:fs";
import { query } from "jsonpath-rfc9535";

const { documents, cases } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const answers = cases.map(({ path, document }) => {
  try {
    return { values: query(documents[document], path) };
  } catch (error) {
    return { error: String(error && error.message ? error.message : error) };
  }
});
process.stdout.write(JSON.stringify(answers));
