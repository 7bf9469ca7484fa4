"""Contact reactions that alternate step to step: the shaking table's runs under several motions, each with
several HHT alphas (the time scheme of the coarse and the fine steps), side by side.

For each run: the most steps in a row a closed base node's normal reaction went up and down in turn (the
check every run makes, fem.problem.observe.PairWatch.alternation, bound fem.problem.checks.ALTERNATION_LIMIT),
the largest friction ratio |RT|/RN of the base outside the impacts against the rigid block's demand over
the same motion, whether a corner slid (and by how much), the largest rotation, the impacts, the energy
books and the time scheme's dissipation, the steps, Newton iterations and wall time.

Run:  python benchmarks/reaction_alternation.py [--alphas 0 -0.05 -0.1 -0.2] [--alpha-fine A]
          [--motions harmonic pulse record stack] [--jobs 2] [--out results/reaction_alternation]

docs/shaking_table.md ("Reactions that alternate") quotes its table.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "examples" / "records" / "synthetic_h_v.csv"

#: name -> the case's flags (the rest its defaults: SDNV105's block on its table, redistributed mass, mu 0.9)
MOTIONS = {
    "harmonic": ["--excitation", "harmonic", "--amplitude-g", "0.55", "--frequency-hz", "1.5", "--cycles", "3",
                 "--mu", "0.9", "--t-end", "4.5"],
    "pulse": ["--excitation", "sine-pulse", "--amplitude-g", "0.6", "--frequency-hz", "2", "--t-end", "3"],
    "record": ["--excitation", "record", "--record", str(RECORD), "--record-units", "m/s2", "--amplitude-g", "0.6"],
    "stack": ["--excitation", "sine-pulse", "--amplitude-g", "0.4", "--frequency-hz", "2", "--t-end", "3",
              "--blocks", "2"],
}


def run(motion: str, alpha: float, out: Path, alpha_fine: float | None = None) -> dict:
    fine = ["--alpha-fine", f"{alpha if alpha_fine is None else alpha_fine:g}"]  # None: alpha on every step
    folder = out / (f"{motion}_alpha{alpha:g}" + ("" if alpha_fine is None else f"_fine{alpha_fine:g}"))
    cmd = [sys.executable, str(ROOT / "cases" / "shaking_table.py"), *MOTIONS[motion], "--alpha", f"{alpha:g}",
           *fine, "--no-paraview", "--quiet", "--out", str(folder)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if not (folder / "summary.json").exists():
        return {"motion": motion, "alpha": alpha, "alpha_fine": alpha_fine, "error": proc.stderr.strip().splitlines()[-1:]}
    s = json.loads((folder / "summary.json").read_text())
    alternation = max((c["value"] for c in s.get("checks", []) if c["quantity"].startswith("reaction alternation")),
                      default=None)
    return {"motion": motion, "alpha": alpha, "alpha_fine": alpha_fine, "status": s["status"], "alternation": alternation,
            "friction": s.get("max_friction_ratio"), "rigid_friction": s["rigid_body"].get("max_friction_ratio"),
            "slid": s.get("slid"), "slip": s.get("max_slip"), "rotation": (s.get("max_rotation") or [None])[0],
            "overturned": s.get("overturned"), "impacts": s.get("impact_count"),
            "books": s.get("energy", {}).get("relative_error"),
            "scheme": s.get("energy", {}).get("numerical_dissipation"),
            "steps": s["run"].get("steps"), "newton": s["run"].get("newton_iterations"),
            "wall": s["run"].get("wall_s")}


def _alphas(r: dict) -> str:
    return f"{r['alpha']:g}" + ("" if r.get("alpha_fine") is None else f" ({r['alpha_fine']:g})")


def _cell(x, fmt="{:.4g}") -> str:
    return "–" if x is None else str(x) if isinstance(x, (bool, str, int)) else fmt.format(x)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--alphas", type=float, nargs="+", default=[0.0, -0.05, -0.1, -0.2])
    ap.add_argument("--motions", nargs="+", choices=tuple(MOTIONS), default=list(MOTIONS))
    ap.add_argument("--alpha-fine", type=float, default=None,
                    help="HHT alpha of the fine steps (default: each run's alpha, on every step)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path("results/reaction_alternation"))
    args = ap.parse_args(argv)
    runs = [(m, a) for m in args.motions for a in args.alphas]
    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda r: run(*r, args.out, args.alpha_fine), runs))
    head = ["motion", "alpha (fine)", "alternation [steps]", "friction ratio", "rigid demand", "slid", "slip [m]",
            "max rotation [rad]", "overturned", "impacts", "books", "scheme [J]", "steps", "Newton", "wall [s]"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        if "error" in r:
            print(f"| {r['motion']} | {_alphas(r)} | failed: {r['error']} |")
            continue
        print("| " + " | ".join([r["motion"], _alphas(r), _cell(r["alternation"]), _cell(r["friction"], "{:.3f}"),
                                 _cell(r["rigid_friction"], "{:.3f}"), _cell(r["slid"]), _cell(r["slip"], "{:.2g}"),
                                 _cell(r["rotation"], "{:.4f}"), _cell(r["overturned"]), _cell(r["impacts"]),
                                 _cell(r["books"], "{:.1e}"), _cell(r["scheme"], "{:.3g}"), _cell(r["steps"]),
                                 _cell(r["newton"]), _cell(r["wall"], "{:.0f}")]) + " |")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"runs{'' if args.alpha_fine is None else f'_fine{args.alpha_fine:g}'}.json").write_text(
        json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
