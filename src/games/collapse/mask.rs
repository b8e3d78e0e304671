//! The bit masks of a [`BitBoard`](super::BitBoard): `u128` for boards of up
//! to 128 bits (PopStar's 10x10, Swell Foop's small size) and a 256-bit
//! integer for boards of up to 256 (SameGame's 15x15, Swell Foop's normal
//! 15x10, 20x10 and 12x12 boards).
//!
//! Only what the board needs of an integer: the bit operations, shifts,
//! counts and a carrying add.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Not, Shl, Shr};

use ethnum::U256;

/// An unsigned integer used as a set of board cells.
pub trait Mask:
    Copy
    + Eq
    + std::hash::Hash
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
    + BitAndAssign
    + BitOrAssign
{
    /// Number of bits.
    const BITS: u32;
    const ZERO: Self;
    const ONE: Self;
    fn count_ones(self) -> u32;
    fn trailing_zeros(self) -> u32;
    fn leading_zeros(self) -> u32;
    fn wrapping_add(self, rhs: Self) -> Self;
    fn wrapping_sub(self, rhs: Self) -> Self;
    fn wrapping_neg(self) -> Self;
    /// The mask's 64-bit words, lowest first, folded into a hash.
    fn hash_words(self, seed: usize) -> u64;

    /// Bit `i` alone.
    #[inline(always)]
    fn bit(i: u32) -> Self {
        Self::ONE << i
    }

    /// The bits below `n` (all bits when `n` is `BITS`).
    #[inline(always)]
    fn below(n: u32) -> Self {
        if n >= Self::BITS {
            !Self::ZERO
        } else {
            (Self::ONE << n).wrapping_sub(Self::ONE)
        }
    }

    /// Bit index of the highest set bit (the mask must not be zero).
    #[inline(always)]
    fn top_bit(self) -> u32 {
        Self::BITS - 1 - self.leading_zeros()
    }

    #[inline(always)]
    fn is_zero(self) -> bool {
        self == Self::ZERO
    }
}

/// Constants that differ per word of the hash.
const SEEDS: [u64; 10] = [
    0x243f_6a88_85a3_08d3,
    0x1319_8a2e_0370_7344,
    0xa409_3822_299f_31d0,
    0x082e_fa98_ec4e_6c89,
    0x4528_21e6_38d0_1377,
    0xbe54_66cf_34e9_0c6c,
    0xc0ac_29b7_c97c_50dd,
    0x3f84_d5b5_b547_0917,
    0x9216_d5d9_8979_fb1b,
    0xd131_0ba6_98df_b5ac,
];

/// Two 64-bit words multiplied together as 128 bits (after mixing in
/// constants that differ per word), folded to 64: every output bit
/// depends on every input bit.
#[inline(always)]
fn fold_pair(a: u64, b: u64, seed: usize) -> u64 {
    let a = a ^ SEEDS[(2 * seed) % 10];
    let b = b ^ SEEDS[(2 * seed + 1) % 10];
    let p = (a as u128).wrapping_mul(b as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

/// `Mask` for an integer type whose inherent methods have the trait's names.
macro_rules! mask_impl {
    ($ty:ty, $bits:expr, $zero:expr, $one:expr, |$m:ident, $seed:ident| $hash:expr) => {
        impl Mask for $ty {
            const BITS: u32 = $bits;
            const ZERO: Self = $zero;
            const ONE: Self = $one;
            #[inline(always)]
            fn count_ones(self) -> u32 {
                <$ty>::count_ones(self)
            }
            #[inline(always)]
            fn trailing_zeros(self) -> u32 {
                <$ty>::trailing_zeros(self)
            }
            #[inline(always)]
            fn leading_zeros(self) -> u32 {
                <$ty>::leading_zeros(self)
            }
            #[inline(always)]
            fn wrapping_add(self, rhs: Self) -> Self {
                <$ty>::wrapping_add(self, rhs)
            }
            #[inline(always)]
            fn wrapping_sub(self, rhs: Self) -> Self {
                <$ty>::wrapping_sub(self, rhs)
            }
            #[inline(always)]
            fn wrapping_neg(self) -> Self {
                <$ty>::wrapping_neg(self)
            }
            #[inline(always)]
            fn hash_words(self, $seed: usize) -> u64 {
                let $m = self;
                $hash
            }
        }
    };
}

mask_impl!(u128, 128, 0, 1, |m, seed| fold_pair(
    m as u64,
    (m >> 64) as u64,
    seed
));
mask_impl!(U256, 256, U256::ZERO, U256::ONE, |m, seed| {
    let (hi, lo) = m.into_words();
    fold_pair(lo as u64, (lo >> 64) as u64, seed)
        ^ fold_pair(hi as u64, (hi >> 64) as u64, seed + 5).rotate_left(29)
});
