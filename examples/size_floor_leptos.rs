//! The smallest Leptos page: a signal, a button, `<Show>` and a keyed `<For>` — Leptos' own
//! runtime with none of our views. `scripts/size-floor.sh` builds it for wasm32 and prints its gzip
//! size. Natively it does nothing.

#[cfg(target_arch = "wasm32")]
fn main() {
    use leptos::prelude::*;
    leptos::mount::mount_to_body(|| {
        let (count, set_count) = signal(0u32);
        let more = move || count.get() > 2;
        view! {
            <main>
                <button on:click=move |_| set_count.update(|n| *n += 1)>{move || count.get()}</button>
                <Show when=more>
                    <p>"more than two"</p>
                </Show>
                <ul>
                    <For each=move || 0..count.get() key=|n: &u32| *n children=|n: u32| view! { <li>{n}</li> } />
                </ul>
            </main>
        }
    });
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
