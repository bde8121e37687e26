// Token counts for bench/context.py: a JSON array of strings on stdin, a JSON array of counts on stdout.
// o200k_base (the GPT-4o / o-series encoding) ships inside gpt-tokenizer: nothing is downloaded at run time.
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const texts = JSON.parse(Buffer.concat(chunks).toString("utf8"));
process.stdout.write(JSON.stringify(texts.map((text) => countTokens(text))));
