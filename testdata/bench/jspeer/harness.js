'use strict';
// Runs rag-pipeline-utils' PipelineEvaluator and CitationTracker over every
// line of a dataset-shape JSON Lines file (the rows ragtriage judge reads),
// in one Node process, and writes one JSON line per row to standard output.
// Usage: node harness.js ROWS.jsonl > /dev/null

const fs = require('fs');
const readline = require('readline');

// load returns the two classes, from the package's main export when it has
// them, else from their source files (the layout of the package's src/).
function load() {
  const pkg = '@devilsdev/rag-pipeline-utils';
  let main = {};
  try {
    main = require(pkg);
  } catch (e) {
    // fall through to the source files
  }
  const PipelineEvaluator = main.PipelineEvaluator ||
    require(pkg + '/src/evaluate/pipeline-evaluator.js').PipelineEvaluator;
  const CitationTracker = main.CitationTracker ||
    require(pkg + '/src/citation/citation-tracker.js').CitationTracker;
  return { PipelineEvaluator, CitationTracker };
}

async function main() {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node harness.js ROWS.jsonl');
    process.exit(2);
  }
  const { PipelineEvaluator, CitationTracker } = load();
  const evaluator = new PipelineEvaluator();
  const tracker = new CitationTracker();
  const rl = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  const out = [];
  let n = 0, bad = 0;
  for await (const line of rl) {
    if (!line.trim()) continue;
    n++;
    try {
      const row = JSON.parse(line);
      const docs = (row.contexts || []).map((c) => ({ id: String(c.id), content: c.text }));
      const citation = tracker.track(row.answer, docs);
      const res = evaluator.evaluate(
        { query: row.question, answer: row.answer, results: docs },
        { citationResult: citation, referenceAnswer: row.referenceAnswer },
      );
      out.push(JSON.stringify({ line: n, id: row.id, scores: res.scores, groundedness: citation.groundednessScore }));
    } catch (e) {
      bad++;
      out.push(JSON.stringify({ line: n, error: String(e && e.message) }));
    }
    if (out.length >= 1024) {
      process.stdout.write(out.join('\n') + '\n');
      out.length = 0;
    }
  }
  if (out.length) process.stdout.write(out.join('\n') + '\n');
  console.error(`jspeer: ${n} rows, ${bad} failed`);
}

main();
