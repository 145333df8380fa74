import sys
sys.path.insert(0, "/work/main/diagnosis/tests")
from pathlib import Path
import shutil
import effect_fixtures as ef
import test_write_diagnosis as tw
import test_effect as te
from arena_diagnosis.report import write_diagnosis
root = Path("/work/main/diagnosis/.figcheck/R")
shutil.rmtree(root, ignore_errors=True); root.mkdir(parents=True)
tw._store(root / "arena.sqlite")
ef.add_effect_runs(root / "arena.sqlite")
w = write_diagnosis(te._context(root))
print([k for k in w if "effect" in k])
