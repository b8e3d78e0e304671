//! Sends key taps through gridbot's input sink (for checking a game's key handling).
//! Usage: cargo run --example tap -- GAP_MS KEY...   (keys: left right up down space)
use gridbot::act::{InputEvent, Key};
use gridbot::platform::InputSink;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let gap: u64 = args.first().ok_or("usage: tap GAP_MS KEY...")?.parse()?;
    let mut sink = gridbot::platform::live::EnigoSink::new()?;
    for a in &args[1..] {
        let k = match a.as_str() {
            "left" => Key::Left,
            "right" => Key::Right,
            "up" => Key::Up,
            "down" => Key::Down,
            "space" => Key::Space,
            _ => return Err(format!("unknown key {a}").into()),
        };
        sink.send(&InputEvent::Tap(k))?;
        std::thread::sleep(std::time::Duration::from_millis(gap));
    }
    Ok(())
}
