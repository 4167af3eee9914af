//! Generated text for the word-frequency demo and benchmark: words drawn
//! from a fixed vocabulary with a skewed (roughly Zipf) distribution, in
//! lines of varying length, from a seed.

/// About `words` words of text, the same for the same `seed`.
pub fn generate(words: usize, seed: u64) -> String {
    const SYLLABLES: [&str; 16] = [
        "ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "po", "da", "gu", "fi", "ho", "je", "bu",
    ];
    let mut state = seed | 1;
    let mut next = move || {
        // xorshift64
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut text = String::with_capacity(words * 7);
    for i in 0..words {
        // Skewed ranks: small ones far more often.
        let r = next() % 4096;
        let rank = (r * r) / 4096 % 4096;
        let mut word = rank;
        loop {
            text.push_str(SYLLABLES[(word % 16) as usize]);
            word /= 16;
            if word == 0 {
                break;
            }
        }
        text.push(if next() % 12 == 0 || i + 1 == words {
            '\n'
        } else {
            ' '
        });
    }
    text
}
