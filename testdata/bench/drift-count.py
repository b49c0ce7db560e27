# Counts, per records file, the rows with an automatic groundedness verdict (pass or fail, not settled by the
# fallback, not withheld) and how many of them are wrong against the dataset's true label. Run in the
# directory holding R-<source>-<true|false>.jsonl and r-<source>-<true|false>.json (see drift-2026-12-04.md).
import json,sys
def labels(p):
    d={}
    for l in open(p):
        r=json.loads(l); g=(r.get('expected') or {}).get('generation',{}).get('groundedness')
        d[r['id']]=g
    return d
for src in ['expertqa_groundedness','nli_mnli','nli_fever_nli','begin_wow_groundedness']:
    lab=labels(f'/work/main/data/dev/{src}.jsonl')
    for mon in ['true','false']:
        n=auto=wrong=0; trip=None
        for i,l in enumerate(open(f'R-{src}-{mon}.jsonl')):
            r=json.loads(l); res=r['result']; n+=1
            v=res['verdicts']['generation'].get('groundedness')
            fb=res.get('fallback') or {}
            if v in ('pass','fail') and 'groundedness' not in (fb.get('decisions') or []):
                auto+=1
                y=lab.get(r['id'])
                if y is not None and (v=='pass')!=y: wrong+=1
            if res.get('withheld') and trip is None: trip=i
        rep=json.load(open(f'r-{src}-{mon}.json'))
        pr=rep.get('promise')
        print(f"{src:24s} monitor={mon:5s} rows={n} autoG={auto} ({auto/n:.1%}) wrongAutoG={wrong} ({wrong/n:.1%}) firstWithheldRow={trip}")
