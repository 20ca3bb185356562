use super::*;

/// feature, threshold, left, right, value, roots.
type Arrays = (Vec<i32>, Vec<f64>, Vec<i32>, Vec<i32>, Vec<f64>, Vec<i32>);

fn view(a: &Arrays, base: f64) -> Ensemble<'_> {
    Ensemble {
        feature: &a.0,
        threshold: &a.1,
        left: &a.2,
        right: &a.3,
        value: &a.4,
        roots: &a.5,
        base,
    }
}

/// Two stumps on columns 0 and 1.
fn stumps() -> Arrays {
    (
        vec![0, -1, -1, 1, -1, -1],
        vec![0.5, 0.0, 0.0, 2.0, 0.0, 0.0],
        vec![1, 1, 2, 4, 4, 5],
        vec![2, 1, 2, 5, 4, 5],
        vec![0.0, -1.0, 1.0, 0.0, 10.0, 20.0],
        vec![0, 3],
    )
}

#[test]
fn rows_follow_their_splits_and_sum_the_leaves() {
    let arrays = stumps();
    let ensemble = view(&arrays, 0.25);
    let x = [0.5, 2.0, 0.6, 2.1, f64::NAN, f64::NAN];
    let mut out = [0.0; 3];
    ensemble.margins(&x, 2, &mut out).unwrap();
    let mut out32 = [0.0; 3];
    let x32 = x.map(|v| v as f32);
    ensemble.margins(&x32, 2, &mut out32).unwrap();
    assert_eq!(out, out32);
    // x <= threshold goes left; NaN compares false and so goes left too.
    assert_eq!(
        out,
        [-1.0 + 10.0 + 0.25, 1.0 + 20.0 + 0.25, -1.0 + 10.0 + 0.25]
    );
}

#[test]
fn bad_indices_are_errors_not_panics() {
    let mut arrays = stumps();
    assert_eq!(
        view(&arrays, 0.0).validate(1),
        Err(TreeError::BadFeature(1))
    );
    arrays.2[0] = 99;
    assert_eq!(view(&arrays, 0.0).validate(2), Err(TreeError::BadNode(99)));
}

#[test]
fn a_cycle_is_reported() {
    let feature = [0, 0];
    let threshold = [1.0, 1.0];
    let next = [1, 0];
    let value = [0.0, 0.0];
    let ensemble = Ensemble {
        feature: &feature,
        threshold: &threshold,
        left: &next,
        right: &next,
        value: &value,
        roots: &[0],
        base: 0.0,
    };
    let mut out = [0.0];
    assert_eq!(ensemble.margins(&[0.0], 1, &mut out), Err(TreeError::Cycle));
}

#[test]
fn the_complete_layout_scores_as_the_node_walk() {
    let arrays = stumps();
    let ensemble = view(&arrays, 0.5);
    let x = [0.5, 2.0, 0.6, 2.1, f64::NAN, 9.0, -1.0, f64::NAN];
    let mut walked = [0.0; 4];
    ensemble.margins(&x, 2, &mut walked).unwrap();
    for levels in [1, 3] {
        let complete = CompleteEnsemble::new(&ensemble, 2, levels)
            .unwrap()
            .unwrap();
        let mut out = [0.0; 4];
        complete.margins(&x, &mut out);
        assert_eq!(out, walked);
    }
    assert_eq!(CompleteEnsemble::new(&ensemble, 2, 0).unwrap(), None);
}

/// Feature value `i` of a test's rows: NaNs, values on the stumps' thresholds and values around
/// them, in a cycle of 7.
fn awkward(i: usize) -> f64 {
    match i % 7 {
        0 => f64::NAN,
        1 => 0.5,
        2 => 2.0,
        k => k as f64 * 0.37 - 0.4,
    }
}

#[test]
fn rows_in_groups_and_in_the_remainder_score_as_the_node_walk() {
    let arrays = stumps();
    let ensemble = view(&arrays, -0.5);
    // 2 full groups and a remainder of 7 rows (a group of 4 and 3 single rows), with NaNs and ties on the thresholds.
    let rows = 2 * ROW_GROUP + 7;
    let x: Vec<f64> = (0..rows * 2).map(awkward).collect();
    let mut walked = vec![0.0; rows];
    ensemble.margins(&x, 2, &mut walked).unwrap();
    let complete = CompleteEnsemble::new(&ensemble, 2, 2).unwrap().unwrap();
    let mut out = vec![0.0; rows];
    complete.margins(&x, &mut out);
    assert_eq!(out, walked);
}

#[test]
fn float32_rows_split_as_their_float64_values() {
    let ts = [
        0.1,
        -0.1,
        1e-45,
        -1e-45,
        3.5e38,
        -3.5e38,
        1.0,
        0.0,
        -0.0,
        f64::INFINITY,
    ];
    let xs = [
        0.1f32,
        -0.1,
        0.0,
        -0.0,
        1.0,
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    for t in ts {
        let floor = float32_floor(t);
        assert!(f64::from(floor) <= t);
        for x in xs {
            assert_eq!(x > floor, f64::from(x) > t, "x {x} t {t}");
            for y in [x.next_up(), x.next_down()] {
                assert_eq!(y > floor, f64::from(y) > t, "x {y} t {t}");
            }
        }
    }
    assert!(float32_floor(f64::NAN).is_nan());
}

#[test]
fn pairwise_sum_matches_plain_sum_on_exact_values() {
    let values: Vec<f64> = (0..300).map(f64::from).collect();
    assert_eq!(pairwise_sum(&values), 299.0 * 300.0 / 2.0);
    assert_eq!(pairwise_sum(&values[..5]), 10.0);
    assert_eq!(pairwise_sum(&[]), 0.0);
}

#[test]
fn an_ensemble_without_trees_gives_its_base() {
    let arrays: Arrays = (vec![], vec![], vec![], vec![], vec![], vec![]);
    let ensemble = view(&arrays, 0.75);
    let complete = CompleteEnsemble::new(&ensemble, 2, 3).unwrap().unwrap();
    let mut out = [0.0; 3];
    complete.margins(&[1.0f32; 6], &mut out);
    assert_eq!(out, [0.75; 3]);
}

/// `rows` rows of `width` columns (row-major) laid out in lanes, the last group padded.
fn in_lanes(x: &[f32], width: usize) -> Vec<f32> {
    let rows = x.len() / width;
    let mut out = vec![f32::NAN; rows.div_ceil(LANES) * LANES * width];
    for r in 0..rows {
        for j in 0..width {
            out[((r / LANES) * width + j) * LANES + r % LANES] = x[r * width + j];
        }
    }
    out
}

#[test]
fn rows_in_lanes_score_as_rows_one_after_the_other() {
    let arrays = stumps();
    let ensemble = view(&arrays, -0.5);
    let complete = CompleteEnsemble::new(&ensemble, 2, 2).unwrap().unwrap();
    for rows in [0, 1, LANES - 1, LANES, 3 * LANES + 5] {
        let x: Vec<f32> = (0..rows * 2).map(|i| awkward(i) as f32).collect();
        let mut rowwise = vec![0.0; rows];
        complete.margins(&x, &mut rowwise);
        let mut lanes = vec![0.0; rows];
        complete.margins_lanes(&in_lanes(&x, 2), &mut lanes);
        assert_eq!(lanes, rowwise, "{rows} rows");
    }
    let empty: Arrays = (vec![], vec![], vec![], vec![], vec![], vec![]);
    let none = CompleteEnsemble::new(&view(&empty, 0.75), 2, 3)
        .unwrap()
        .unwrap();
    let mut out = [0.0; 3];
    none.margins_lanes(&in_lanes(&[1.0f32; 6], 2), &mut out);
    assert_eq!(out, [0.75; 3]);
}

/// A step of a small linear congruential generator: the tests' arbitrary but fixed draws.
fn draw(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *state >> 33
}

/// `trees` trees of at most `levels` levels over `width` columns, with leaves above the last
/// level, thresholds on and around the rows' values, ±inf thresholds and leaves of every sign.
fn drawn_trees(trees: usize, levels: u32, width: usize, seed: u64) -> Arrays {
    let mut state = seed;
    let mut a: Arrays = Default::default();
    for _ in 0..trees {
        a.5.push(a.0.len() as i32);
        // (node, depth): a node's slot is filled when it is popped.
        let mut stack = vec![(a.0.len(), 0u32)];
        for v in [&mut a.0, &mut a.2, &mut a.3] {
            v.push(-1);
        }
        a.1.push(0.0);
        a.4.push(0.0);
        while let Some((node, depth)) = stack.pop() {
            if depth == levels || draw(&mut state).is_multiple_of(5) {
                a.4[node] = (draw(&mut state) % 2001) as f64 / 1000.0 - 1.0;
                continue;
            }
            a.0[node] = (draw(&mut state) % width as u64) as i32;
            a.1[node] = match draw(&mut state) % 9 {
                0 => f64::INFINITY,
                1 => f64::NEG_INFINITY,
                k => awkward(k as usize + draw(&mut state) as usize),
            };
            for child in [2, 3] {
                let at = a.0.len();
                for v in [&mut a.0, &mut a.2, &mut a.3] {
                    v.push(-1);
                }
                a.1.push(0.0);
                a.4.push(0.0);
                if child == 2 {
                    a.2[node] = at as i32;
                } else {
                    a.3[node] = at as i32;
                }
                stack.push((at, depth + 1));
            }
        }
    }
    // Leaves point at themselves, as model files' leaves do.
    for i in 0..a.0.len() {
        if a.0[i] < 0 {
            (a.2[i], a.3[i]) = (i as i32, i as i32);
        }
    }
    a
}

#[test]
fn deep_ensembles_in_lanes_score_as_the_node_walk() {
    // 150 and 300 trees: the sum splits in halves above 128 leaves, as numpy's does.
    for (trees, levels, width) in [(3, 2, 1), (150, 6, 7), (300, 6, 3), (9, 10, 4)] {
        let arrays = drawn_trees(trees, levels, width, trees as u64);
        let ensemble = view(&arrays, -0.125);
        let complete = CompleteEnsemble::new(&ensemble, width, levels)
            .unwrap()
            .unwrap();
        for rows in [1, LANES, 5 * LANES + 3] {
            let x: Vec<f32> = (0..rows * width)
                .map(|i| awkward(i * 3 + 1) as f32)
                .collect();
            let mut walked = vec![0.0; rows];
            ensemble.margins(&x, width, &mut walked).unwrap();
            let mut lanes = vec![0.0; rows];
            complete.margins_lanes(&in_lanes(&x, width), &mut lanes);
            let bits = |v: &[f64]| v.iter().map(|m| m.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&lanes), bits(&walked), "{trees} trees, {rows} rows");
        }
    }
}

#[test]
fn lanes_sum_as_rows_do() {
    for n in [0, 1, 7, 8, 9, 64, 128, 129, 150, 300, 1000] {
        let rows: Vec<Vec<f64>> = (0..LANES)
            .map(|r| {
                (0..n)
                    .map(|t| ((t * 7 + r * 13) % 17) as f64 * 0.1 - 0.85 + (r as f64) * 1e-17)
                    .collect()
            })
            .collect();
        let lanes: Vec<[f64; LANES]> = (0..n)
            .map(|t| std::array::from_fn(|r| rows[r][t]))
            .collect();
        let sums = pairwise_sum_lanes(&lanes);
        for r in 0..LANES {
            assert_eq!(
                sums[r].to_bits(),
                pairwise_sum(&rows[r]).to_bits(),
                "{n} values"
            );
        }
    }
    assert!(pairwise_sum_lanes(&[[-0.0; LANES]; 3])[0].is_sign_negative());
}
