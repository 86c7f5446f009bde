/* An array element written by a third party against the installed libplan
 * (pkg-config plan-1.0): it squares every element of a float array.
 *
 * Build:
 *   cc -shared -fPIC -o libgstexamplesquare.so examplesquare.c \
 *       $(pkg-config --cflags --libs plan-1.0)
 *
 * Use:
 *   GST_PLUGIN_PATH=. gst-launch-1.0 planfilesrc location=in.npy ! \
 *       examplesquare ! planfilesink location=out.npy
 */

/* GST_PLUGIN_DEFINE names the package; a real project's config.h does. */
#define PACKAGE "examplesquare"

#include <libplan/plan.h>

#define EXAMPLE_TYPE_SQUARE (example_square_get_type ())
G_DECLARE_FINAL_TYPE (ExampleSquare, example_square, EXAMPLE, SQUARE,
    PlanKernelElement)

struct _ExampleSquare
{
  PlanKernelElement parent;
};

G_DEFINE_TYPE (ExampleSquare, example_square, PLAN_TYPE_KERNEL_ELEMENT);

/* Called once the input's caps are known: accept floats, produce the same
 * dtype and shape. */
static gboolean
example_square_setup (PlanKernelElement * kernel, guint n_inputs,
    const PlanArrayInfo * inputs, PlanArrayInfo * output, GError ** error)
{
  if (!plan_dtype_is_float (inputs[0].dtype)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_TYPE,
        "examplesquare needs float32 or float64 input, not %s",
        plan_dtype_to_string (inputs[0].dtype));
    return FALSE;
  }
  *output = inputs[0];
  return TRUE;
}

/* Called with the next rows of the input. */
static GstFlowReturn
example_square_process (PlanKernelElement * kernel, const PlanChunk * chunk)
{
  const PlanArrayInfo *info = plan_kernel_element_get_input_info (kernel, 0);
  gsize n = chunk->n_rows * plan_array_info_get_row_elements (info), i;
  GstBuffer *out;
  GstMapInfo map;
  GstFlowReturn ret;

  ret = plan_kernel_element_alloc_output (kernel, chunk->n_rows, &out);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!gst_buffer_map (out, &map, GST_MAP_WRITE)) {
    gst_buffer_unref (out);
    GST_ELEMENT_ERROR (kernel, RESOURCE, WRITE, (NULL), (NULL));
    return GST_FLOW_ERROR;
  }

  if (info->dtype == PLAN_DTYPE_FLOAT32) {
    const gfloat *in = chunk->data[0];
    gfloat *o = (gfloat *) map.data;
    for (i = 0; i < n; i++)
      o[i] = in[i] * in[i];
  } else {
    const gdouble *in = chunk->data[0];
    gdouble *o = (gdouble *) map.data;
    for (i = 0; i < n; i++)
      o[i] = in[i] * in[i];
  }

  gst_buffer_unmap (out, &map);
  return plan_kernel_element_push_output (kernel, out);
}

static void
example_square_class_init (ExampleSquareClass * klass)
{
  PlanKernelElementClass *kernel_class = PLAN_KERNEL_ELEMENT_CLASS (klass);

  kernel_class->setup = example_square_setup;
  kernel_class->process = example_square_process;
  plan_kernel_element_class_add_pad_templates (kernel_class, FALSE);
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "Example square", "Filter/Converter/Array",
      "Squares every element (an example third-party element)",
      "gst-plan authors");
}

static void
example_square_init (ExampleSquare * self)
{
}

static gboolean
plugin_init (GstPlugin * plugin)
{
  plan_init ();
  return gst_element_register (plugin, "examplesquare", GST_RANK_NONE,
      EXAMPLE_TYPE_SQUARE);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, examplesquare,
    "An example array element", plugin_init, "0.1", "LGPL", "example",
    "https://example.org/examplesquare")
