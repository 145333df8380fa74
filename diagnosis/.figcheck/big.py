import numpy as np, pandas as pd
from arena_diagnosis import effect_figures as EF, figures as F
rng = np.random.default_rng(0)
methods = ["CausalPFN", "Do-PFN", "CausalFM", "TabPFN S-Learner", "TabPFN T-Learner", "TabPFN DR-Learner", "ForestDRIV", "TabPFN FD plug-in (very long name)"]
rows, sm = [], []
for v in ["bd", "fd", "iv", "px", "hc"]:
    for m in methods:
        a, b = rng.gamma(1, 0.3), rng.gamma(1, 0.5) * (10 if v == "iv" else 1)
        rows.append(dict(view=v, method=m, spehe2=a+b, spehe2_sd=0.3*(a+b), mean_effect_error=a, centred_cate_error=b))
        sm.append(dict(method=m, view=v, stay_error=10**rng.uniform(-3, 0), move_tracking_error=10**rng.uniform(-2, 1)))
t = pd.DataFrame(rows)
out = "/work/main/diagnosis/.figcheck/big"
st = F.method_styles(methods)
print(EF.view_method_bars(t, out), EF.stay_move_map(pd.DataFrame(sm), out, styles=st))
