"""`reference`: the reference campaign, every study (or some) re-measured and installed."""
from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("reference", help="re-measure the studies the paper is computed from, one run per study",
                       description="Runs each study (E1..E7) as one interleaved run with an A/A twin of its "
                                   "baseline, then installs it into data/reference*/, replacing only that study's "
                                   "runs. Resumable: run it again after a stop and it goes on where it stopped.")
    p.add_argument("--study", metavar="E1,E3", help="the studies to measure (default: all, in order)")
    p.add_argument("--plan", action="store_true", help="print what each study will cost and stop")
    p.add_argument("--force", action="store_true",
                   help="measure on a busy machine, and install a study even when most of its processes were disturbed")
    p.add_argument("--replicate", action="store_true",
                   help="run the studies again in this sitting and install each beside its folder "
                        "(data/reference-replicate/, data/reference-h2-replicate/) instead of in place of its run: "
                        "the paper sets the two runs side by side (the between-run spread)")
    p.add_argument("--work", type=Path, help="where the campaign's runs and state go (default "
                   "data/runs/reference-campaign, with --replicate data/runs/reference-replicate)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.fsutil import PROJECT_ROOT
    from harness.run.reference import pick, plan_text, replicates, run_campaign

    studies = pick(args.study)
    if args.replicate:
        studies = replicates(studies, named=bool(args.study))
    print(plan_text(studies), flush=True)
    if args.plan:
        return 0
    default = "reference-replicate" if args.replicate else "reference-campaign"
    work = args.work or PROJECT_ROOT / "data" / "runs" / default
    state = run_campaign(studies, work, force=args.force, say=lambda line: print(line, flush=True))
    refused = [name for name, st in state.items() if st.get("status") == "refused"]
    return 1 if refused else 0
