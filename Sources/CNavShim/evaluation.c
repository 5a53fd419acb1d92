// evaluation.c: JavaScript evaluations and async calls, each answered
// exactly once (a destroyed view cancels its own). See include/navshim.h.
#define _GNU_SOURCE
#include "navshim-private.h"

// MARK: - JavaScript

static void evaluation_unref(nw_evaluation *evaluation) {
    if (--evaluation->refs > 0) return;
    g_object_unref(evaluation->cancellable);
    g_free(evaluation);
    nw_live_evaluations--;
}

static void on_evaluation_finished(GObject *source, GAsyncResult *result, gpointer user_data) {
    nw_evaluation *evaluation = user_data;
    g_autoptr(GError) error = NULL;
    g_autoptr(JSCValue) value = evaluation->is_call
        ? webkit_web_view_call_async_javascript_function_finish(WEBKIT_WEB_VIEW(source), result, &error)
        : webkit_web_view_evaluate_javascript_finish(WEBKIT_WEB_VIEW(source), result, &error);
    nw_js_result converted = {0};
    g_autofree char *json = NULL;
    if (error) {
        converted.type = NW_JS_ERROR;
        converted.error_domain = g_quark_to_string(error->domain);
        converted.error_code = error->code;
        converted.error_message = error->message;
    } else if (jsc_value_is_undefined(value)) {
        converted.type = NW_JS_UNDEFINED;
    } else if (jsc_value_is_null(value)) {
        converted.type = NW_JS_NULL;
    } else {
        if (jsc_value_is_boolean(value)) converted.type = NW_JS_BOOLEAN;
        else if (jsc_value_is_number(value)) converted.type = NW_JS_NUMBER;
        else if (jsc_value_is_string(value)) converted.type = NW_JS_STRING;
        else if (jsc_value_is_array(value)) converted.type = NW_JS_ARRAY;
        else converted.type = NW_JS_OBJECT;
        json = jsc_value_to_json(value, 0);
        converted.json = json;
    }
    if (evaluation->view) evaluation->view->evaluations = g_list_remove(evaluation->view->evaluations, evaluation);
    evaluation->done(evaluation->context, &converted);
    evaluation_unref(evaluation);
}

static nw_evaluation *evaluation_new(nw_view *view, void (*done)(void *context, const nw_js_result *result),
                                     void *context) {
    nw_evaluation *evaluation = g_new0(nw_evaluation, 1);
    evaluation->cancellable = g_cancellable_new();
    evaluation->view = view;
    evaluation->done = done;
    evaluation->context = context;
    evaluation->refs = 2;
    nw_live_evaluations++;
    view->evaluations = g_list_prepend(view->evaluations, evaluation);
    return evaluation;
}

nw_evaluation *nw_view_evaluate(nw_view *view, const char *script,
                                void (*done)(void *context, const nw_js_result *result), void *context) {
    nw_evaluation *evaluation = evaluation_new(view, done, context);
    webkit_web_view_evaluate_javascript(view->web_view, script, -1, NULL, NULL, evaluation->cancellable,
                                        on_evaluation_finished, evaluation);
    return evaluation;
}

nw_evaluation *nw_view_call_async(nw_view *view, const char *body, const char *world,
                                  void (*done)(void *context, const nw_js_result *result), void *context) {
    nw_evaluation *evaluation = evaluation_new(view, done, context);
    evaluation->is_call = TRUE;
    webkit_web_view_call_async_javascript_function(view->web_view, body, -1, NULL, world, NULL,
                                                   evaluation->cancellable, on_evaluation_finished, evaluation);
    return evaluation;
}

void nw_evaluation_cancel(nw_evaluation *evaluation) { g_cancellable_cancel(evaluation->cancellable); }
void nw_evaluation_free(nw_evaluation *evaluation) { evaluation_unref(evaluation); }
