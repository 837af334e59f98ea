; meep (C++, FDTD): a dielectric waveguide in 2D driven by a continuous source, the geometry
; of meep's first tutorial, with no field output. Each time step exchanges the field halos
; of neighbouring chunks between ranks.
(set! geometry-lattice (make lattice (size 32 16 no-size)))
(set! geometry (list (make block (center 0 0) (size infinity 1 infinity)
                           (material (make dielectric (epsilon 12))))))
(set! sources (list (make source (src (make continuous-src (frequency 0.15)))
                          (component Ez) (center -7 0))))
(set! pml-layers (list (make pml (thickness 1.0))))
(set! resolution 10)
(run-until 600)
