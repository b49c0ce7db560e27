// Package wordnet is an embedded lexical table derived from WordNet 3.0
// (Princeton University, https://wordnet.princeton.edu): for an English word
// form, its base form (irregular and regular inflections undone, plus one
// derivational step: written → write, children → child, government →
// govern), a few synonyms from its most frequent senses, and its direct
// antonyms. Package lexical compiles it, with its own word lists, into the
// lexicon its judges read (guard/lexical/lexicon.tsv, checked and rewritten
// by TestLexiconUpToDate there), to match words that their light stemmer
// cannot.
//
// The data is WordNet 3.0 Copyright 2006 by Princeton University, used under
// the WordNet 3.0 license; the notice is in LICENSE-WordNet in this
// directory and must travel with the table.
//
// The table, wordnet.txt.gz, is generated from the WordNet database files of
// Debian's wordnet-base package (apt-get install wordnet-base) by
//
//	go run ./guard/lexical/internal/wordnet/gen -dict /usr/share/wordnet -out guard/lexical/internal/wordnet/wordnet.txt.gz
//
// (run from the module root; -out with a name not ending in .gz, or no -out,
// writes the plain text, for reading or diffing: the format is described in
// gen/main.go). TestGeneratedUpToDate checks the committed table against
// the generator when /usr/share/wordnet exists.
//
// The table is decompressed and parsed once, on first use.
package wordnet
