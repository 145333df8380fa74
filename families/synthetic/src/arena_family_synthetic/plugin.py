"""Registers the synthetic family, the App. A.1 component catalogue and the App. A.2 protocol suite.

Cheap: no generation at import.

The catalogue's classes live in :mod:`.distributions` (roots, noises, root
dependency), :mod:`.mechanisms` and :mod:`.stressors`; :data:`COMPONENTS`
lists them so that building the registry imports none of them (nor scipy):
a class is imported when a spec first uses it. The protocols live in
:mod:`.protocols`, imported when a protocol is first resolved.
"""

from typing import Iterable

from causalarena.hookspecs import hookimpl
from causalarena.records import ComponentInfo, FamilyInfo, InterventionInfo

#: (record kind, spec kind, "module:Class" under this package, description), App. A.1
COMPONENTS = (
    ('root_distribution', 'truncated_gaussian', 'distributions:TruncatedGaussianRoot',
     'N(loc, scale²) clipped to loc ± 2.5·scale (mass Φ(−2.5) ≈ 0.62 % on each clip point).'),
    ('root_distribution', 'gamma', 'distributions:GammaRoot',
     'Gamma(concentration k, rate θ): mean k/θ, variance k/θ².'),
    ('root_distribution', 'scaled_beta', 'distributions:ScaledBetaRoot',
     'low + (high − low)·Beta(a, b).'),
    ('root_distribution', 'exponential', 'distributions:ExponentialRoot',
     'Exponential(rate): support [0, ∞), mean 1/rate. App. A.1: rate ∈ [0.4, 2.5].'),
    ('root_distribution', 'gumbel', 'distributions:GumbelRoot',
     'Gumbel(loc, scale) (maximum type): mean loc + γ·scale, variance π²·scale²/6.'),
    ('root_distribution', 'bernoulli', 'distributions:BernoulliRoot',
     'Bernoulli(p) on {0, 1}. App. A.1: p ∈ [0.15, 0.85].'),
    ('root_distribution', 'poisson', 'distributions:PoissonRoot',
     'Poisson(rate) on {0, 1, …}: mean = variance = rate. App. A.1: rate ∈ [1, 12].'),
    ('root_distribution', 'ordinal', 'distributions:OrdinalRoot',
     'Ordered levels 0, …, k−1 with probabilities ``probs`` (length k).'),
    ('root_distribution', 'mixture_gaussian', 'distributions:MixtureGaussianRoot',
     'weight·N(loc1, scale1²) + (1 − weight)·N(loc2, scale2²).'),
    ('root_distribution', 'multinomial', 'distributions:MultinomialRoot',
     'An unordered category index c ∈ {0, …, K−1}, standardised: (c − μ)/σ.'),
    ('root_distribution', 'zipf', 'distributions:ZipfRoot',
     'min(V, cap) − μ with P(V = v) ∝ v^−alpha on v = 1, …, ``support``, cap = 10.'),
    ('noise', 'multiplicative_lognormal', 'distributions:MultiplicativeLognormalNoise',
     'value = signal·exp(sigma·z), z ~ N(0, 1); the exogenous column holds sigma·z.'),
    ('noise', 'heteroskedastic', 'distributions:HeteroskedasticNoise',
     'value = s + (base + slope·sigmoid(|s|))·z, z ~ N(0, 1), s = the (calibrated) signal.'),
    ('noise', 'rff_heteroskedastic', 'distributions:RFFHeteroskedasticNoise',
     'value = s + softplus(g(parents))·z, z ~ N(0, 1), g a random-Fourier-feature function.'),
    ('noise', 'target_r2', 'distributions:TargetR2Noise',
     'Additive N(0, scale²) with scale chosen so that R² = var(s)/(var(s) + scale²) equals ``r2``.'),
    ('noise', 'mixture_outlier', 'distributions:MixtureOutlierNoise',
     'Additive two-component mixture: N(0, outlier_scale²) with probability outlier_prob, else N(0, base_scale²).'),
    ('noise', 'quantized', 'distributions:QuantizedNoise',
     'value = step·round((s + ε)/step), ε ~ N(0, scale²): Gaussian-noisy values on a grid.'),
    ('noise', 'censored', 'distributions:CensoredNoise',
     'value = clip(s + ε, low, high), ε ~ N(0, scale²).'),
    ('noise', 'beta', 'distributions:BetaNoise',
     'Additive scale·(Beta(a, b) − a/(a + b)): centred, support [−scale·a/(a+b), scale·b/(a+b)].'),
    ('noise', 'exponential', 'distributions:ExponentialNoise',
     'Additive scale·(E − 1/rate), E ~ Exponential(rate): centred, one-sided (support ≥ −scale/rate).'),
    ('noise', 'gumbel', 'distributions:GumbelNoise',
     "Additive Gumbel(−γ·scale, scale) (γ Euler's constant): centred, variance π²·scale²/6."),
    ('root_dependency', 'common_factor', 'distributions:CommonFactorDependency',
     'x_i = signs_i·(√rho·f + √(1 − rho)·e_i), f, e_i i.i.d. N(0, 1).'),
    ('root_dependency', 'random_covariance', 'distributions:RandomCovarianceDependency',
     'Gaussian N(0, Σ), Σ = L Lᵀ + 0.15·I, L = ``loadings`` (r × q); columns divided by √Σ_ii.'),
    ('root_dependency', 'uniform_ball', 'distributions:UniformBallDependency',
     'Uniform in the r-ball: center + scale·R·u, u uniform on the sphere, R = U^{1/r}; then standardised.'),
    ('mechanism', 'product', 'mechanisms:Product',
     'Multiplicative parent product f(x) = Π_j (w_j x_j + b_j).'),
    ('mechanism', 'random_function_product', 'mechanisms:RandomFunctionProduct',
     'Random-function product f(x) = s · Π_j tanh(a_j x_j + c_j).'),
    ('mechanism', 'interaction', 'mechanisms:Interaction',
     'Additive interaction f(x) = Σ_j w_j x_j + Σ_p v_p x_{i_p} x_{j_p} + b.'),
    ('mechanism', 'rational', 'mechanisms:Rational',
     'Denominator-safe ratio f(x) = (w·x + b) / (offset + |u·x|).'),
    ('mechanism', 'exp_log', 'mechanisms:ExpLog',
     'Exponential or logarithmic response of the linear index u = w·x + b.'),
    ('mechanism', 'periodic', 'mechanisms:Periodic',
     'Additive periodic response f(x) = Σ_j a_j sin(ω_j x_j + φ_j) + b.'),
    ('mechanism', 'piecewise', 'mechanisms:Piecewise',
     'Threshold response of u = w·x: two linear pieces and a jump at the cutoff c.'),
    ('mechanism', 'regime_switching', 'mechanisms:RegimeSwitching',
     'Two linear regimes blended by a sigmoid gate.'),
    ('mechanism', 'rff', 'mechanisms:RandomFourierFeatures',
     'Random-Fourier-feature function (a GP draw with an RBF kernel, Rahimi & Recht 2007).'),
    ('mechanism', 'activation', 'mechanisms:Activation',
     'An activation of the additive index: f(x) = act(w·x + b).'),
    ('mechanism', 'tree', 'mechanisms:RegressionTree',
     'A complete binary regression tree of depth D with axis-aligned splits.'),
    ('mechanism', 'discretisation', 'mechanisms:Discretisation',
     'A discretised response: each row is assigned to one of B bins or clusters, which sets its value.'),
    ('mechanism', 'aggregation', 'mechanisms:Aggregation',
     'Max or log-sum-exp aggregation of the weighted parents and a constant reference b.'),
    ('stressor', 'feature_warping', 'stressors:FeatureWarping',
     'Monotone warping of about 55 % of the columns, App. A.1 "Observation stressors".'),
    ('stressor', 'outliers', 'stressors:Outliers',
     'Outlier contamination of about 2.5 % of the entries, App. A.1 "Observation stressors".'),
    ('stressor', 'missingness', 'stressors:Missingness',
     'Missingness with mean imputation, about 5 % of the entries, App. A.1 "Observation stressors".'),
    ('stressor', 'feature_corruption', 'stressors:FeatureCorruption',
     'Feature corruption: about 3 % of the entries permuted within their column, App. A.1.'),
    ('stressor', 'soft', 'stressors:SoftIntervention',
     'Soft interventions, App. A.1 "Intervention stressors" (softness 0.45).'),
    ('stressor', 'intervention_shift', 'stressors:InterventionShift',
     'Interventional distribution shift, App. A.1 "Intervention stressors".'),
)


@hookimpl
def arena_families():
    yield FamilyInfo(
        name="synthetic",
        kind="synthetic",
        factory="arena_family_synthetic.family:SyntheticFamily",
        description="regenerable SCM grid (App. A.1): 10 graph families x d in {10,20,30,50,100} x 20 = 1,000 "
                    "configurations (500 public + 500 reserved), mixed mechanisms, noises, roots, stressors",
        citation="CausalArena paper, App. A.1",
    )


@hookimpl
def arena_components():
    """The App. A.1 catalogue beyond the core's basic set: one :class:`ComponentInfo` per :data:`COMPONENTS` row."""
    for kind, name, factory, description in COMPONENTS:
        yield ComponentInfo(kind=kind, name=name, factory=f"arena_family_synthetic.{factory}",
                            description=description)


@hookimpl
def arena_interventions() -> Iterable[InterventionInfo]:
    """The five App. A.2 protocols beyond the core's ``default`` (same names and row budgets as before the move)."""
    yield InterventionInfo(
        name="fixed_setpoint",
        factory="arena_family_synthetic.protocols:fixed_setpoint",
        n_obs=800,
        n_int=200,
        description="one target per row set to its 20th/50th/80th percentile, jitter 1% of the IQR (App. A.2)",
    )
    yield InterventionInfo(
        name="parameter_shift",
        factory="arena_family_synthetic.protocols:parameter_shift",
        n_obs=800,
        n_int=200,
        description="structural targets' mechanisms shifted: parent scale, bias 0.3-0.8 IQR or strength (App. A.2)",
    )
    yield InterventionInfo(
        name="high_fraction",
        factory="arena_family_synthetic.protocols:high_fraction",
        n_obs=200,
        n_int=800,
        description="200 observational + 800 single-target hard-resampling rows (App. A.2)",
    )
    yield InterventionInfo(
        name="multi_target",
        factory="arena_family_synthetic.protocols:multi_target",
        n_obs=800,
        n_int=200,
        description="2-4 hard-resampled targets per interventional row (App. A.2)",
    )
    yield InterventionInfo(
        name="dense_mixed",
        factory="arena_family_synthetic.protocols:dense_mixed",
        n_obs=200,
        n_int=800,
        description="2-4 structural targets per row; hard, fixed-setpoint and parameter-shift rows balanced (App. A.2)",
    )
