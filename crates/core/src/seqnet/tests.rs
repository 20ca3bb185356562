use super::*;

fn tiny(
    numeric: usize,
    tokens: usize,
    width: usize,
    layers: usize,
) -> (HashMap<String, Vec<f32>>, Sizes) {
    let embedding = 2;
    let mut arrays = HashMap::default();
    let mut seed = 1u32;
    let mut fill = |n: usize| -> Vec<f32> {
        (0..n)
            .map(|_| {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
            })
            .collect()
    };
    let mut put = |name: &str, values: Vec<f32>| {
        arrays.insert(name.to_owned(), values);
    };
    put("mean", fill(numeric));
    put("scale", vec![1.0; numeric]);
    put("embedding", fill(tokens * embedding));
    for (name, inputs, outputs) in [
        ("in1", numeric + embedding, width),
        ("in2", width, width),
        ("out", width, 1),
    ] {
        put(&format!("{name}.weight"), fill(inputs * outputs));
        put(&format!("{name}.bias"), fill(outputs));
    }
    for (name, taps) in [("conv1", 5), ("conv2", 3)] {
        put(&format!("{name}.weight"), fill(width * width * taps));
        put(&format!("{name}.bias"), fill(width));
    }
    put("norm.weight", vec![1.0; width]);
    put("norm.bias", vec![0.0; width]);
    for i in 0..layers {
        for (name, inputs, outputs) in [
            ("qkv", width, 3 * width),
            ("proj", width, width),
            ("ff1", width, 2 * width),
            ("ff2", 2 * width, width),
        ] {
            put(&format!("layer{i}.{name}.weight"), fill(inputs * outputs));
            put(&format!("layer{i}.{name}.bias"), fill(outputs));
        }
        for name in ["ln1", "ln2"] {
            put(&format!("layer{i}.{name}.weight"), vec![1.0; width]);
            put(&format!("layer{i}.{name}.bias"), vec![0.0; width]);
        }
    }
    let sizes = Sizes {
        numeric,
        tokens,
        width,
        embedding,
        layers,
        heads: 2,
        chunk: 4,
    };
    (arrays, sizes)
}

#[test]
fn one_logit_per_block_and_the_same_logits_twice() {
    let (arrays, sizes) = tiny(3, 5, 4, 1);
    let net = SeqNet::new(&arrays, &sizes).unwrap();
    let values: Vec<f32> = (0..30).map(|i| i as f32 / 10.0).collect();
    let indices = [0, 4, 2];
    let offsets = [0, 1, 1, 3, 3, 3, 3, 3, 3, 3, 3];
    let a = net.margins(&values, &indices, &offsets).unwrap();
    assert_eq!(a.len(), 10);
    assert!(a.iter().all(|v| v.is_finite()));
    assert_eq!(a, net.margins(&values, &indices, &offsets).unwrap());
}

#[test]
fn attention_stays_within_its_chunk() {
    let (arrays, mut sizes) = tiny(2, 3, 4, 1);
    sizes.chunk = 2;
    let net = SeqNet::new(&arrays, &sizes).unwrap();
    // Changing block 5 changes nothing in the chunk of blocks 0 and 1 beyond the convolutions' reach.
    let mut values = vec![0.5f32; 2 * 12];
    let offsets = [0i64; 13];
    let before = net.margins(&values, &[], &offsets).unwrap();
    values[2 * 11] = 9.0;
    let after = net.margins(&values, &[], &offsets).unwrap();
    assert_eq!(before[..2], after[..2]);
    assert_ne!(before[11], after[11]);
}

#[test]
fn segments_give_the_logits_of_the_whole_page() {
    let (arrays, mut sizes) = tiny(2, 3, 4, 2);
    sizes.chunk = 4;
    let net = SeqNet::new(&arrays, &sizes).unwrap();
    let rows = 103;
    let values: Vec<f32> = (0..rows * 2)
        .map(|i| ((i * 37) % 11) as f32 * 0.3 - 1.0)
        .collect();
    let offsets: Vec<i64> = (0..=rows as i64).map(|i| i / 2).collect();
    let indices: Vec<i64> = (0..rows as i64 / 2).map(|i| i % 3).collect();
    let fill = |r: std::ops::Range<usize>, out: &mut [f32]| {
        out.copy_from_slice(&values[r.start * 2..r.end * 2]);
    };
    let whole = net.margins_in_segments(&fill, &indices, &offsets, rows, usize::MAX);
    assert_eq!(whole.len(), rows);
    for segment in [1, 3, 4, 5, 8, 17, 64, 102] {
        let parts = net.margins_in_segments(&fill, &indices, &offsets, rows, segment);
        assert_eq!(parts, whole, "segments of {segment} rows");
    }
}

#[test]
fn bad_weights_and_tokens_are_errors() {
    let (mut arrays, sizes) = tiny(3, 5, 4, 1);
    let net = SeqNet::new(&arrays, &sizes).unwrap();
    assert!(net.margins(&[0.0; 3], &[7], &[0, 1]).is_err());
    assert!(net.margins(&[0.0; 3], &[], &[0]).is_err());
    arrays.get_mut("in2.bias").unwrap().pop();
    assert!(matches!(
        SeqNet::new(&arrays, &sizes),
        Err(NetError::Shape { .. })
    ));
}
