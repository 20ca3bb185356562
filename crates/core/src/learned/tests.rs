use super::*;

fn stumps() -> TreeArrays {
    // Two stumps on features 0 and 1.
    TreeArrays {
        feature: vec![0, -1, -1, 1, -1, -1],
        threshold: vec![0.5, 0.0, 0.0, 2.0, 0.0, 0.0],
        left: vec![1, 1, 2, 4, 4, 5],
        right: vec![2, 1, 2, 5, 4, 5],
        value: vec![0.0, -1.0, 1.0, 0.0, 10.0, 20.0],
        roots: vec![0, 3],
        depth: 1,
        base: 0.0,
    }
}

/// The margins of `trees` on the rows of `x` (`width` values each), by the plain node walk.
fn walked_margins(trees: &TreeArrays, x: &[f32], width: usize) -> Vec<f64> {
    let narrow = |v: &[i64]| v.iter().map(|&i| i as i32).collect::<Vec<i32>>();
    let (feature, left, right, roots) = (
        narrow(&trees.feature),
        narrow(&trees.left),
        narrow(&trees.right),
        narrow(&trees.roots),
    );
    let ensemble = Ensemble {
        feature: &feature,
        threshold: &trees.threshold,
        left: &left,
        right: &right,
        value: &trees.value,
        roots: &roots,
        base: trees.base,
    };
    let mut out = vec![0.0; x.len() / width.max(1)];
    ensemble.margins(x, width, &mut out).unwrap();
    out
}

fn file(trees: TreeArrays, names: &[&str]) -> FileSpec {
    let mut models = HashMap::new();
    models.insert(
        "stage1".to_owned(),
        ModelSpec {
            feature_names: names.iter().map(|n| (*n).to_owned()).collect(),
            kind: Kind::Trees(trees),
        },
    );
    FileSpec {
        models,
        vocabulary: vec!["nav".into()],
        threshold: 0.5,
        ..FileSpec::default()
    }
}

fn base_names() -> Vec<String> {
    vec!["a".into(), "b".into()]
}

#[test]
fn a_sound_file_loads() {
    let model = LearnedModel::new(&file(stumps(), &["a", "tok_nav"]), &base_names()).unwrap();
    assert_eq!(model.stage1.reads, [Source::Base(0), Source::Token(0)]);
    assert!(!model.has_stage2() && !model.has_network());
}

#[test]
fn bad_arrays_are_refused() {
    let names = ["a", "b"];
    let mut nan_leaf = stumps();
    nan_leaf.value[1] = f64::NAN;
    let mut far_feature = stumps();
    far_feature.feature[3] = i64::MAX;
    let mut far_child = stumps();
    far_child.left[0] = 99;
    let mut short = stumps();
    short.threshold.pop();
    let mut cycle = stumps();
    cycle.feature[1] = 0;
    cycle.left[1] = 0;
    let mut nan_threshold = stumps();
    nan_threshold.threshold[0] = f64::NAN;
    let mut far_root = stumps();
    far_root.roots[1] = -1;
    for (bad, says) in [
        (nan_leaf, "not finite"),
        (far_feature, "beyond its 2 features"),
        (far_child, "outside the 6 nodes"),
        (short, "threshold holds 5 nodes"),
        (cycle, "cycle"),
        (nan_threshold, "NaN threshold"),
        (far_root, "a root -1"),
    ] {
        let error = LearnedModel::new(&file(bad, &names), &base_names()).unwrap_err();
        assert!(error.0.contains(says), "{error} lacks {says:?}");
    }
}

#[test]
fn an_unknown_feature_is_refused() {
    let error = LearnedModel::new(&file(stumps(), &["a", "zzz"]), &base_names()).unwrap_err();
    assert!(error.0.contains("\"zzz\""), "{error}");
    // A token outside the vocabulary is not a column either.
    assert!(LearnedModel::new(&file(stumps(), &["a", "tok_main"]), &base_names()).is_err());
}

#[test]
fn the_expected_f1_cut_follows_the_page() {
    let p = [0.9, 0.8, 0.1];
    let words = [10.0, 10.0, 10.0];
    assert_eq!(expected_f1_cut(&p, &words, false, 1.0), 0.8);
    assert_eq!(expected_f1_cut(&[], &[], false, 1.0), 1.0);
    // Nothing likely content: keeping nothing wins when allowed.
    let low = [0.01, 0.02];
    assert!(expected_f1_cut(&low, &[1.0, 1.0], true, 1.0).is_infinite());
    assert!(expected_f1_cut(&low, &[1.0, 1.0], false, 1.0).is_finite());
}

#[test]
fn the_threshold_falls_back_when_nothing_is_kept() {
    let params = ScoreParams {
        smoothing: true,
        confident: 0.7,
        certain: 0.05,
        decoding: Decoding::Threshold,
        threshold: 0.5,
        never_empty: true,
        fallback_ratio: 0.75,
        allow_empty: false,
        beta: 1.0,
    };
    let (labels, cut) = decide(&[0.2, 0.4], &[1.0, 1.0], &params);
    assert_eq!(labels, [false, true]);
    assert_eq!(cut, 0.4 * 0.75);
    let strict = ScoreParams {
        never_empty: false,
        ..params
    };
    assert_eq!(
        decide(&[0.2, 0.4], &[1.0, 1.0], &strict),
        (vec![false, false], 0.5)
    );
}

#[test]
fn uncertain_rows_lie_inside_the_band() {
    assert_eq!(uncertain(&[0.01, 0.5, 0.99], 0.05), [1]);
    assert_eq!(uncertain(&[0.01, 0.5, 0.99], 0.0), [0, 1, 2]);
}

/// Features of `n` blocks whose only values are Readability's candidate columns, block i's
/// row from `row(i)`.
fn candidate_features(n: usize, row: impl Fn(usize) -> [f32; 6]) -> Features {
    Features {
        rows: n,
        base: base::BaseMatrix::default(),
        candidates: (0..n).flat_map(&row).collect(),
        bags: (Vec::new(), vec![0; n + 1]),
        cetr_cluster: Vec::new(),
    }
}

#[test]
fn equal_rows_are_scored_once_and_every_row_gets_its_own_margin() {
    // A batch of a few rows repeated, one of distinct rows, then more (the lookup turned
    // off): every margin is the one the node walk gives the row alone.
    let n = 3 * SCORE_BATCH + 100;
    let row = |i: usize| {
        let v = if i < SCORE_BATCH {
            (i % 3) as f32
        } else {
            i as f32 / 1000.0
        };
        [v, 2.5 - v, 0.0, -0.0, f32::NAN, 1.0]
    };
    let features = candidate_features(n, row);
    let mut trees = stumps();
    trees.threshold = vec![1.5, 0.0, 0.0, 0.25, 0.0, 0.0];
    let names = ["rd_paragraph", "rd_in_top"];
    let model = LearnedModel::new(&file(trees.clone(), &names), &base_names()).unwrap();
    assert!(model.stage1.lanes());
    let expected = |blocks: &[usize]| -> Vec<f64> {
        let x: Vec<f32> = blocks.iter().flat_map(|&b| row(b)[..2].to_vec()).collect();
        walked_margins(&trees, &x, 2)
    };
    let all: Vec<usize> = (0..n).collect();
    assert_eq!(
        features.margins_of(&model.stage1, None, &[]),
        expected(&all)
    );
    let some: Vec<usize> = (0..n).rev().step_by(3).collect();
    assert_eq!(
        features.margins_of(&model.stage1, Some(&some), &[]),
        expected(&some)
    );
}

#[test]
fn distinct_rows_are_told_apart_to_the_bit() {
    let x = [
        1.0,
        2.0,
        0.0,
        -0.0,
        1.0,
        2.0,
        f32::NAN,
        0.0,
        0.0,
        -0.0,
        0.0,
        0.0,
        f32::NAN,
        0.0,
    ];
    let mut distinct = DistinctRows::default();
    distinct.find(&x, 2);
    assert_eq!(distinct.firsts, [0, 1, 3, 5]);
    assert_eq!(distinct.row_of, [0, 1, 0, 2, 1, 3, 2]);
    distinct.find(&x[..4], 2);
    assert_eq!((distinct.firsts.len(), distinct.row_of.len()), (2, 2));
}

#[test]
fn rows_told_apart_without_the_same_columns_get_their_own_margins() {
    use crate::features::page::Head;
    use crate::features::tree::{tree_facts, TreeParams};
    // 5,000 equal items then paragraphs of every length: the lookup reads the columns that
    // differ between blocks only, and the whole rows of the distinct ones are scored.
    let mut html = String::from("<ul>");
    html.push_str(&"<li>item</li>".repeat(5000));
    html.push_str("</ul>");
    for i in 0..300 {
        html.push_str(&format!("<p>{}</p>", "word ".repeat(i + 1)));
    }
    let dom = crate::parse(&html, crate::Limits::default());
    let doc = crate::build(&dom);
    let params = TreeParams {
        context_tags: vec!["li".into()],
        max_cue_distance: 30,
        ..TreeParams::default()
    };
    let facts = tree_facts(&dom, &doc, false, &params);
    let types = HashSet::default();
    let head = Head {
        title: "",
        structured_text: "",
        types: &types,
    };
    let stops = HashSet::default();
    let names = base::base_names(&params);
    let base = base::BaseMatrix::new(&dom, &doc, &facts, &params, &stops, &head);
    let n = doc.blocks.len();
    // tag_li and log_chars differ between blocks; tag_table is 0 for every block.
    let read = ["tag_table", "log_chars", "tag_li"];
    let at: Vec<usize> = read
        .iter()
        .map(|r| names.iter().position(|n| n == r).unwrap())
        .collect();
    assert_eq!(base.same(at[0]), Some(0.0));
    assert!(base.same(at[1]).is_none() && base.same(at[2]).is_none());
    let trees = TreeArrays {
        feature: vec![1, 2, -1, -1, 0, -1, -1],
        threshold: vec![3.0, 0.5, 0.0, 0.0, -1.0, 0.0, 0.0],
        left: vec![1, 2, 2, 3, 5, 5, 6],
        right: vec![4, 3, 2, 3, 6, 5, 6],
        value: vec![0.0, 0.0, -1.0, 1.0, 0.0, 2.0, 3.0],
        roots: vec![0],
        depth: 2,
        base: 0.5,
    };
    let model = LearnedModel::new(&file(trees.clone(), &read), &names).unwrap();
    let features = Features {
        rows: n,
        base,
        candidates: Vec::new(),
        bags: (Vec::new(), vec![0; n + 1]),
        cetr_cluster: Vec::new(),
    };
    let x: Vec<f32> = (0..n)
        .flat_map(|b| {
            at.iter()
                .map(|&j| features.base.get(b, j))
                .collect::<Vec<_>>()
        })
        .collect();
    let expected = walked_margins(&trees, &x, read.len());
    assert_eq!(features.margins_of(&model.stage1, None, &[]), expected);
    let some: Vec<usize> = (0..n).rev().collect();
    let reversed: Vec<f64> = expected.iter().rev().copied().collect();
    assert_eq!(
        features.margins_of(&model.stage1, Some(&some), &[]),
        reversed
    );
    assert!(expected.iter().any(|&m| m != expected[0]));
}
