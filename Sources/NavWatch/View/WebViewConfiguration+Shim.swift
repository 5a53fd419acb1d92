import CNavShim

extension WebViewConfiguration {
    /// Calls `body` with this configuration as the shim's `nw_settings`
    /// (the document script, its world and message handler included). The
    /// strings are valid only during the call.
    func withShimSettings<Result>(_ body: (inout nw_settings) -> Result) -> Result {
        DocumentScript.source.withCString { script in
            DocumentScript.world.withCString { world in
                DocumentScript.messageHandler.withCString { handler in
                    userAgent.withOptionalCString { agent in
                        var settings = nw_settings()
                        settings.user_agent = agent
                        settings.javascript_markup_enabled = javaScriptEnabled ? 1 : 0
                        settings.images_enabled = imagesEnabled ? 1 : 0
                        // window.open without a user gesture must reach decide-policy (as a
                        // new-window request) instead of being dropped; no window is ever opened.
                        settings.can_open_windows_automatically = 1
                        // A failure is reported, not replaced by WebKit's error page (a second load cycle).
                        settings.show_error_pages = 0
                        settings.width = Int32(viewportWidth)
                        settings.height = Int32(viewportHeight)
                        settings.scale_factor = Int32(deviceScaleFactor)
                        settings.document_script = script
                        settings.script_world = world
                        settings.message_handler = handler
                        settings.content_filter = contentFilter?.handle
                        return body(&settings)
                    }
                }
            }
        }
    }
}
